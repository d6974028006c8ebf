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
how the episode ended.
"""
from __future__ import annotations

import io
import math
import os
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
from PIL import Image

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


# -- a 3 x 5 pixel font, enough for the overlay --------------------------------

_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111",
    "3": "111001111001111", "4": "101101111001001", "5": "111100111001111",
    "6": "111100111101111", "7": "111001001010010", "8": "111101111101111",
    "9": "111101111001111", "A": "010101111101101", "B": "110101110101110",
    "C": "011100100100011", "D": "110101101101110", "E": "111100110100111",
    "F": "111100110100100", "G": "011100101101011", "H": "101101111101101",
    "I": "111010010010111", "J": "001001001101010", "K": "101101110101101",
    "L": "100100100100111", "M": "101111111101101", "N": "110101101101101",
    "O": "010101101101010", "P": "110101110100100", "Q": "010101101110011",
    "R": "110101110101101", "S": "011100010001110", "T": "111010010010010",
    "U": "101101101101111", "V": "101101101101010", "W": "101101111111101",
    "X": "101101010101101", "Y": "101101010010010", "Z": "111001010100111",
    ".": "000000000000010", ":": "000010000010000", "%": "101001010100101",
    "/": "001001010100100", "-": "000000111000000", "!": "010010010000010",
    " ": "000000000000000",
}
_MASKS = {ch: np.array([c == "1" for c in bits], bool).reshape(5, 3)
          for ch, bits in _GLYPHS.items()}


def text_size(text: str, scale: int) -> tuple[int, int]:
    """(width, height) in pixels of `text` drawn at `scale`."""
    return (4 * len(text) - 1) * scale, 5 * scale


Ink = Mapping[tuple, Any]


def draw_text(img: np.ndarray, x: int, y: int, text: str, colour: Any,
              scale: int = 2) -> None:
    """Draw `text` (upper case, digits, . : % / - !) with its top-left at
    (x, y) in `colour` (an RGB triple, or a palette index on an indexed
    image); pixels outside the image are skipped."""
    h, w = img.shape[:2]
    for ch in text.upper():
        mask = _MASKS.get(ch, _MASKS[" "])
        if scale > 1:
            mask = mask.repeat(scale, 0).repeat(scale, 1)
        mh, mw = mask.shape
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + mw, w), min(y + mh, h)
        if x0 < x1 and y0 < y1:
            img[y0:y1, x0:x1][mask[y0 - y:y1 - y, x0 - x:x1 - x]] = colour
        x += 4 * scale


def _panel(img: np.ndarray, x: int, y: int, lines: list[tuple[str, tuple]], scale: int,
           ink: Ink | None) -> None:
    pad = 2 * scale
    width = max(text_size(t, scale)[0] for t, _ in lines) + 2 * pad
    height = len(lines) * 7 * scale - 2 * scale + 2 * pad
    img[y:y + height, x:x + width] = ink[PANEL] if ink else PANEL
    for i, (t, colour) in enumerate(lines):
        draw_text(img, x + pad, y + pad + i * 7 * scale, t, ink[colour] if ink else colour,
                  scale)


def draw_overlay(img: np.ndarray, frame: int, speed: float, rings: int,
                 note: tuple[str, tuple] | None = None, scale: int = 2,
                 ink: Ink | None = None) -> None:
    """Frame number, speed and rings in a panel at the top left; `note`
    (text, RGB colour) in one at the top right. `ink` maps the RGB colours
    to the values written, for an indexed image."""
    top = 4 * scale + 2
    _panel(img, 4, top, [(f"FRAME {frame}", TEXT), (f"SPEED {speed:4.1f}", TEXT),
                         (f"RINGS {rings}", TEXT)], scale, ink)
    if note is not None:
        w = text_size(note[0], scale)[0] + 4 * scale
        _panel(img, img.shape[1] - 4 - w, top, [note], scale, ink)


def draw_ending(img: np.ndarray, text: str, colour: tuple, detail: str, scale: int,
                ink: Ink | None = None) -> None:
    """A banner across the view, above the player (whom the camera keeps
    in the middle): how the episode ended."""
    big = 3 * scale
    w, h = text_size(text, big)
    dw, dh = text_size(detail, scale)
    cy = int(img.shape[0] * 0.3)
    y0, y1 = cy - h // 2 - 4 * scale, cy + h // 2 + dh + 8 * scale
    img[y0:y1] = ink[PANEL] if ink else PANEL
    draw_text(img, (img.shape[1] - w) // 2, y0 + 3 * scale, text,
              ink[colour] if ink else colour, big)
    draw_text(img, (img.shape[1] - dw) // 2, y0 + 3 * scale + h + 3 * scale, detail,
              ink[TEXT] if ink else TEXT, scale)


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
            img = palette.indices(rgb)
            if scale > 1:
                img = img.repeat(scale, axis=0).repeat(scale, axis=1)
            note = note_at[i]
            draw_overlay(img, traj.frame[i], float(speed[i]), traj.rings[i],
                         None if note < 0 else NOTES[note][1:], scale, palette.index)
            if i == last:
                text, colour = ending
                detail = f"{len(traj)} FRAMES  {len(traj) / FPS:.1f} S"
                draw_ending(img, text, colour, detail, scale, palette.index)
            frame = Image.fromarray(img)
            frame.putpalette(palette.flat)
            yield frame

    gif = GifStream()
    for k, frame in enumerate(frames()):
        gif.add(frame, END_HOLD_MS if k == count - 1 else ms)
    if gif.frames != count:
        raise AssertionError(f"wrote {gif.frames} GIF frames, planned {count}")
    out = Path(out)
    atomic_write_bytes(out, gif.finish())
    return out


class GifStream:
    """An animated GIF built one frame at a time, so that a long episode
    never holds all its frames in memory (Pillow's multi-frame writer
    keeps every frame until the end).

    Pillow encodes each frame as a one-frame GIF; its image block is then
    appended here behind a delay. Only the box of pixels that changed since
    the previous frame is stored (a still scene costs almost nothing). The
    first frame's colour table becomes the global one; a frame with
    another palette carries its own.
    """

    def __init__(self, loop: int = 0) -> None:
        self.loop = loop
        self.frames = 0
        self._parts: list[bytes] = []
        self._global: bytes | None = None
        self._previous: np.ndarray | None = None

    def add(self, frame: Image.Image, delay_ms: int) -> None:
        """Append a palette ("P") frame shown for `delay_ms`."""
        pixels = np.asarray(frame)
        x0 = y0 = 0
        if self._previous is not None and self._previous.shape == pixels.shape:
            changed = pixels != self._previous
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if rows.size:
                y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
            else:
                y0, y1, x0, x1 = 0, 1, 0, 1       # unchanged: one pixel, as it was
            part = Image.fromarray(pixels[y0:y1, x0:x1])
            part.putpalette(frame.getpalette())
            frame = part
        self._previous = pixels
        buf = io.BytesIO()
        frame.save(buf, format="GIF", optimize=False, interlace=False)
        data = buf.getvalue()
        packed = data[10]
        table_end = 13 + (3 << ((packed & 7) + 1) if packed & 0x80 else 0)
        table = data[13:table_end]
        image = self._image_block(data, table_end)
        if self._global is None:
            self._global = table
            self._parts.append(b"GIF89a" + data[6:table_end])
            # Loop forever (or `loop` times): the NETSCAPE2.0 extension.
            self._parts.append(b"\x21\xff\x0bNETSCAPE2.0\x03\x01"
                               + self.loop.to_bytes(2, "little") + b"\x00")
        elif table != self._global and not image[9] & 0x80:
            # Move this frame's colour table into a local one.
            flags = (image[9] & 0x78) | 0x80 | (packed & 7)
            image = image[:9] + bytes([flags]) + table + image[10:]
        # Place the box where it belongs on the screen.
        image = (image[:1] + int(x0).to_bytes(2, "little") + int(y0).to_bytes(2, "little")
                 + image[5:])
        delay = max(0, round(delay_ms / 10))
        # Disposal 1: the next frame is drawn over this one, left in place.
        self._parts.append(b"\x21\xf9\x04\x04" + delay.to_bytes(2, "little") + b"\x00\x00")
        self._parts.append(image)
        self.frames += 1

    @staticmethod
    def _image_block(data: bytes, pos: int) -> bytes:
        """The image descriptor and data of a one-frame GIF, from `pos`."""
        while pos < len(data):
            kind = data[pos]
            if kind == 0x21:            # an extension: skip its sub-blocks
                pos += 2
                while data[pos]:
                    pos += data[pos] + 1
                pos += 1
            elif kind == 0x2C:
                start = pos
                flags = data[pos + 9]
                pos += 10 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
                pos += 1                # LZW minimum code size
                while data[pos]:
                    pos += data[pos] + 1
                return data[start:pos + 1]
            else:
                break
        raise ValueError("the GIF encoder wrote no image")

    def finish(self) -> bytes:
        """The whole GIF."""
        if self._global is None:
            raise ValueError("a GIF needs at least one frame")
        return b"".join(self._parts) + b"\x3b"


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
