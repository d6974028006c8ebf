"""`python -m plots replay --plot FILE` draws every stage it plays, those
of a generated set included, finished or not, each into a file named
after its stage, as its --help says."""
from __future__ import annotations

from PIL import Image

from plots.__main__ import main


def test_a_set_gets_one_picture_per_stage_finished_or_not(tmp_path, capsys):
    out = tmp_path / "run.png"
    code = main(["replay", "--agent", "jump-runner", "--stage", "gen:easy:0-1", "hillside",
                 "--max-steps", "1200", "--plot", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["run-gen-easy-0.png", "run-gen-easy-1.png", "run-hillside.png"]
    for name in names:
        assert f"wrote {tmp_path / name}" in printed.out
        assert Image.open(tmp_path / name).format == "PNG"


def test_help_says_one_file_for_every_stage_played(capsys):
    try:
        main(["replay", "--help"])
    except SystemExit as stop:
        assert stop.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "one PNG for every stage played, finished or not" in text
    assert "run-gen-hard-7.png" in text
