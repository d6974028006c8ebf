"""A recorded episode as an animated GIF that follows the player.

    write_replay_gif(result, "hillside", "run.gif")       result recorded on hillside

The frames are the game's own (`speednik.render.render_frame`). A
recording keeps the player's path, not the whole game state, so the
episode is played again: the recorded actions go through `sim_step`, with
the jump button's edges rebuilt by `action_to_input` exactly as the
runner does. The simulation is deterministic, so the replayed path must
match the recorded one frame for frame; it is checked, and a recording
from another stage or an older game version is refused, never drawn
wrong.

Every `stride`-th game frame is kept; the game runs at 60 frames a second,
so at the default stride of 3 each GIF frame shows for 50 ms and the
animation plays at real speed. Episodes too long for `max_frames` get a
larger stride: same real speed, choppier (and faster than real speed once
a frame would show for more than 100 ms). A small overlay gives the frame
number, speed and rings and names what just happened (a hit, a spring, an
enemy destroyed, a checkpoint); the last frame holds for two seconds with
how the episode ended. Pillow draws the overlay (its own font) and writes
the animated GIF.
"""
from __future__ import annotations

import io
import math
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
from PIL import Image, ImageDraw, ImageFont

import speednik.render as render
from runners.atomic import atomic_write_bytes
from runners.episode import resolve_stage
from runners.result import EpisodeResult, Trajectory
from speednik.actions import action_to_input
from speednik.checks import positive_int
from speednik.constants import FPS
from speednik.simulation import create_sim, sim_step

DEFAULT_STRIDE = 3            # 60 / 3 = 20 GIF frames a second
DEFAULT_MAX_FRAMES = 1500     # a full 3600-frame episode plays at the default stride
DEFAULT_SCALE = 2             # 640 x 448: the game's 320 x 224 is small on a screen
END_HOLD_MS = 2000
MAX_DELAY_MS = 100
# The recorded and the replayed path agree exactly; this only absorbs
# positions that went through a text format on the way.
POSITION_TOLERANCE = 1e-6
# How long a "HIT", "SPRING", ... note stays on screen, in game frames.
NOTE_FRAMES = 45

TEXT = (255, 255, 255)
TEXT_DIM = (170, 170, 190)
TEXT_ALERT = (255, 90, 90)
TEXT_GOOD = (120, 240, 120)
PANEL = (16, 16, 28)

NOTES = (("death", "DEATH", TEXT_ALERT), ("damage", "HIT", TEXT_ALERT),
         ("goal", "GOAL", TEXT_GOOD), ("enemy", "ENEMY DOWN", TEXT_GOOD),
         ("spring", "SPRING", TEXT), ("checkpoint", "CHECKPOINT", TEXT))
ENDINGS = {"goal": ("GOAL", TEXT_GOOD), "death": ("DEATH", TEXT_ALERT),
           "stalled": ("STALLED", TEXT_DIM), "timeout": ("TIME UP", TEXT_DIM)}


class ReplayMismatchError(ValueError):
    """The recorded actions, played again, do not retrace the recorded path."""


# -- the overlay, drawn with Pillow ---------------------------------------------------

Ink = Mapping[tuple, Any]


def overlay_font(scale: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's own font at a size that suits a frame enlarged `scale`
    times."""
    return _font(7 * scale)


@lru_cache(maxsize=8)
def _font(size: int):
    return ImageFont.load_default(size=size)


def text_size(text: str, font) -> tuple[int, int]:
    """(width, height) in pixels of `text` drawn in `font`."""
    left, top, right, bottom = font.getbbox(text)
    return right - left, bottom - top


def _draw(img: Image.Image) -> ImageDraw.ImageDraw:
    draw = ImageDraw.Draw(img)
    # Whole pixels only: smoothed edges would bring colours the palette
    # has not got.
    draw.fontmode = "1"
    return draw


def _ink(colour: tuple, ink: Ink | None):
    return ink[colour] if ink else colour


def draw_text(img: Image.Image, x: int, y: int, text: str, colour: Any, font) -> None:
    """Draw `text` with the top-left of its box at (x, y) in `colour` (an
    RGB triple on an RGB image, a palette index on an indexed one)."""
    left, top, _, _ = font.getbbox(text)
    _draw(img).text((x - left, y - top), text, fill=colour, font=font)


def _panel(img: Image.Image, x: int, y: int, lines: list[tuple[str, tuple]], scale: int,
           ink: Ink | None) -> None:
    font = overlay_font(scale)
    pad, gap = 2 * scale, 2 * scale
    line_h = max(text_size("0Ag", font)[1], 1)
    width = max(text_size(t, font)[0] for t, _ in lines) + 2 * pad
    height = len(lines) * (line_h + gap) - gap + 2 * pad
    _draw(img).rectangle((x, y, x + width - 1, y + height - 1), fill=_ink(PANEL, ink))
    for i, (t, colour) in enumerate(lines):
        draw_text(img, x + pad, y + pad + i * (line_h + gap), t, _ink(colour, ink), font)


def draw_overlay(img: Image.Image, frame: int, speed: float, rings: int,
                 note: tuple[str, tuple] | None = None, scale: int = 2,
                 ink: Ink | None = None) -> None:
    """Frame number, speed and rings in a panel at the top left; `note`
    (text, RGB colour) in one at the top right. `ink` maps the RGB colours
    to the values written, for an indexed image."""
    top = 4 * scale + 2
    _panel(img, 4, top, [(f"FRAME {frame}", TEXT), (f"SPEED {speed:4.1f}", TEXT),
                         (f"RINGS {rings}", TEXT)], scale, ink)
    if note is not None:
        w = text_size(note[0], overlay_font(scale))[0] + 4 * scale
        _panel(img, img.width - 4 - w, top, [note], scale, ink)


def draw_ending(img: Image.Image, text: str, colour: tuple, detail: str, scale: int,
                ink: Ink | None = None) -> None:
    """A banner across the view, above the player (whom the camera keeps
    in the middle): how the episode ended."""
    big, small = _font(21 * scale), overlay_font(scale)
    w, h = text_size(text, big)
    dw, dh = text_size(detail, small)
    cy = int(img.height * 0.3)
    y0 = cy - h // 2 - 4 * scale
    y1 = cy + h // 2 + dh + 8 * scale
    _draw(img).rectangle((0, y0, img.width - 1, y1 - 1), fill=_ink(PANEL, ink))
    draw_text(img, (img.width - w) // 2, y0 + 3 * scale, text, _ink(colour, ink), big)
    draw_text(img, (img.width - dw) // 2, y0 + 3 * scale + h + 3 * scale, detail,
              _ink(TEXT, ink), small)


# -- replay ---------------------------------------------------------------------------

def replay_frames(stage: Any, trajectory: Trajectory, stride: int = DEFAULT_STRIDE,
                  scale: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """Play the recorded actions again on `stage` and yield (index into
    the trajectory, rendered RGB frame) for every `stride`-th frame and
    the last one. Raises `ReplayMismatchError` as soon as the replay
    leaves the recorded path."""
    positive_int(stride, "stride")
    stage = resolve_stage(stage)
    sim = create_sim(stage)
    xs, ys, actions = trajectory.x, trajectory.y, trajectory.action
    last = len(actions) - 1
    held = False
    for i, action in enumerate(actions):
        inp, held = action_to_input(action, held)
        sim_step(sim, inp)
        p = sim.player.physics
        if abs(p.x - xs[i]) > POSITION_TOLERANCE or abs(p.y - ys[i]) > POSITION_TOLERANCE:
            raise ReplayMismatchError(
                f"replaying the recorded actions on {stage.name!r} leaves the recorded "
                f"path at frame {trajectory.frame[i]} (x {p.x:.2f}, y {p.y:.2f} instead "
                f"of {xs[i]:.2f}, {ys[i]:.2f}): the recording is from another stage "
                "or another version of the game")
        if i % stride == 0 or i == last:
            yield i, render.render_frame(sim, scale=scale)


def gif_plan(steps: int, stride: int = DEFAULT_STRIDE,
             max_frames: int = DEFAULT_MAX_FRAMES) -> tuple[int, int, int]:
    """(stride, GIF frames, ms per frame) for an episode of `steps` frames:
    the stride grows when the episode would need more than `max_frames`."""
    if not isinstance(max_frames, int) or isinstance(max_frames, bool) or max_frames < 2:
        raise ValueError(f"max_frames must be an integer >= 2, got {max_frames!r}")
    positive_int(stride, "stride")
    def count(k: int) -> int:
        # Every k-th frame from the first, and the last one.
        return len(range(0, steps, k)) + (1 if (steps - 1) % k else 0)

    stride = max(stride, math.ceil(steps / max_frames) - 1, 1)
    while count(stride) > max_frames:
        stride += 1
    frames = count(stride)
    # GIF delays are whole hundredths of a second. Past 10 frames a second
    # the picture turns into a slide show, so a very long episode squeezed
    # into few frames plays faster than real time instead.
    ms = min(MAX_DELAY_MS, max(20, 10 * round(stride * 1000 / FPS / 10)))
    return stride, frames, ms


class Palette:
    """The GIF's palette: it starts with every colour the game's renderer
    names, plus the overlay's, and takes in any other colour a frame shows
    (up to 256; past that, the nearest is used). Frames are mapped onto it
    exactly; mostly one palette serves the whole GIF, which keeps colours
    steady from frame to frame."""

    def __init__(self) -> None:
        colours = {v for k, v in vars(render).items()
                   if k.isupper() and isinstance(v, tuple) and len(v) == 3
                   and all(isinstance(c, int) and 0 <= c < 256 for c in v)}
        colours |= {TEXT, TEXT_DIM, TEXT_ALERT, TEXT_GOOD, PANEL}
        self.colours: list[tuple[int, int, int]] = sorted(colours)[:256]
        self.index: dict[tuple, int] = {c: i for i, c in enumerate(self.colours)}
        self._rebuild()

    def _rebuild(self) -> None:
        rgb = np.array(self.colours, np.int64)
        codes = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        self._order = np.argsort(codes)
        self._codes = codes[self._order]
        self._rgb = rgb
        flat = [v for c in self.colours for v in c]
        self.flat = flat + flat[:3] * (256 - len(self.colours))

    def indices(self, rgb: np.ndarray) -> np.ndarray:
        """The (H, W) uint8 palette indices of an RGB frame."""
        c = rgb.astype(np.int64)
        code = (c[..., 0] << 16) | (c[..., 1] << 8) | c[..., 2]
        pos = np.minimum(np.searchsorted(self._codes, code), len(self._codes) - 1)
        miss = self._codes[pos] != code
        if miss.any():
            self._take_in(np.unique(code[miss]))
            pos = np.minimum(np.searchsorted(self._codes, code), len(self._codes) - 1)
            miss = self._codes[pos] != code
        out = self._order[pos].astype(np.uint8)
        if miss.any():
            unknown, where = np.unique(code[miss], return_inverse=True)
            parts = np.stack([unknown >> 16, (unknown >> 8) & 255, unknown & 255], axis=1)
            d = ((parts[:, None, :] - self._rgb[None, :, :]) ** 2).sum(axis=2)
            out[miss] = d.argmin(axis=1).astype(np.uint8)[where]
        return out

    def _take_in(self, codes: np.ndarray) -> None:
        room = 256 - len(self.colours)
        for code in codes[:room].tolist():
            colour = (code >> 16, (code >> 8) & 255, code & 255)
            self.index[colour] = len(self.colours)
            self.colours.append(colour)
        if room > 0:
            self._rebuild()


def write_replay_gif(result: EpisodeResult | Trajectory, stage: Any,
                     out: str | os.PathLike, stride: int = DEFAULT_STRIDE,
                     max_frames: int = DEFAULT_MAX_FRAMES,
                     scale: int = DEFAULT_SCALE) -> Path:
    """Write the recorded episode `result` (played on `stage`) as an
    animated GIF to `out`; the path written."""
    traj = result.trajectory if isinstance(result, EpisodeResult) else result
    if traj is None:
        raise ValueError("the episode was not recorded: run it with record=True "
                         "to animate it")
    if len(traj) == 0:
        raise ValueError("the episode has no frames to animate")
    positive_int(scale, "scale")
    stride, count, ms = gif_plan(len(traj), stride, max_frames)
    reason = result.done_reason if isinstance(result, EpisodeResult) else None
    ending = _ending(traj, reason)
    speed = np.hypot(traj.array("x_vel"), traj.array("y_vel"))
    note_at = _notes(traj)
    palette = Palette()
    last = len(traj) - 1

    def frames() -> Iterator[Image.Image]:
        # Frames are mapped to the palette at the game's size, then
        # enlarged and written on as palette indices: the cheap way round.
        for i, rgb in replay_frames(stage, traj, stride, 1):
            pixels = palette.indices(rgb)
            if scale > 1:
                pixels = pixels.repeat(scale, axis=0).repeat(scale, axis=1)
            img = Image.fromarray(pixels, mode="P")
            note = note_at[i]
            draw_overlay(img, traj.frame[i], float(speed[i]), traj.rings[i],
                         None if note < 0 else NOTES[note][1:], scale, palette.index)
            if i == last:
                text, colour = ending
                detail = f"{len(traj)} FRAMES  {len(traj) / FPS:.1f} S"
                draw_ending(img, text, colour, detail, scale, palette.index)
            yield img

    shots = list(frames())
    if len(shots) != count:
        raise AssertionError(f"drew {len(shots)} GIF frames, planned {count}")
    # The palette may have grown while the frames were drawn: every frame
    # gets the final one, so the GIF keeps one colour table.
    for shot in shots:
        shot.putpalette(palette.flat)
    buf = io.BytesIO()
    # Disposal 1: each frame is drawn over the last, so Pillow stores only
    # the box that changed.
    shots[0].save(buf, format="GIF", save_all=True, append_images=shots[1:],
                  duration=[ms] * (count - 1) + [END_HOLD_MS], loop=0, disposal=1,
                  optimize=False)
    out = Path(out)
    atomic_write_bytes(out, buf.getvalue())
    return out


def _ending(traj: Trajectory, reason: str | None) -> tuple[str, tuple]:
    if reason is None:
        final = traj.events[-1]
        reason = "goal" if "goal" in final else "death" if "death" in final else None
    return ENDINGS.get(reason, ("END", TEXT_DIM))


def _notes(traj: Trajectory) -> np.ndarray:
    """For each recorded frame, the index in `NOTES` of the most important
    event of the last `NOTE_FRAMES` frames, or -1."""
    n = len(traj)
    out = np.full(n, -1, np.int64)
    rank = {name: k for k, (name, _, _) in enumerate(NOTES)}
    for i, events in enumerate(traj.events):
        hits = [rank[e] for e in events if e in rank]
        if not hits:
            continue
        k = min(hits)
        span = out[i:i + NOTE_FRAMES]
        # A more important note (lower index) is not overwritten.
        span[(span < 0) | (span > k)] = k
    return out
