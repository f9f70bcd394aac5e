"""The plot of a real benchmark record, made here on a small graph: a PNG is written (from the
record, from its JSON, and by bench --plot), and a missing matplotlib is named."""
import json
import struct
import sys

import numpy as np
import pytest

import lagraph_dist as ld
from lagraph_dist.tools.bench import BenchConfig, run_bench, write_json
from lagraph_dist.tools.cli import main
from lagraph_dist.tools.plot import plot_record

pytest.importorskip("matplotlib", reason="the plot extra is not installed")

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def record():
    A = ld.kronecker(8, seed=1, backend="cpu")
    info = {"kind": "kronecker", "scale": 8, "edgefactor": 16, "seed": 1, "build_seconds": 0.0}
    config = BenchConfig(roots=4, peers=("scipy", "graphblas-pushpull", "cupyx-naive"), progress=False)
    return run_bench(A, info, config)


def check_png(path):
    """A real PNG of the expected layout: signature, size, header, and more than one colour."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert len(data) > 20_000
    width, height = struct.unpack(">II", data[16:24])
    import matplotlib.image
    pixels = matplotlib.image.imread(str(path))
    assert pixels.shape[:2] == (height, width)
    rgba = np.ascontiguousarray((255 * pixels).astype(np.uint8)).view(np.uint32)
    assert np.unique(rgba).shape[0] > 10          # bars of several colours, not a blank page
    return width, height


def test_plot_of_a_record(record, tmp_path):
    assert record["lagraph_dist"]["push"]["levels_first_root"]
    width, height = check_png(plot_record(record, tmp_path / "bench.png"))
    assert height > width          # the GTEPS bars above one per-level panel per direction


def test_plot_command_reads_the_json(record, tmp_path, capsys):
    write_json(record, tmp_path / "bench.json")
    assert main(["plot", str(tmp_path / "bench.json"), "-o", str(tmp_path / "out.png")]) == 0
    assert f"wrote {tmp_path / 'out.png'}" in capsys.readouterr().out
    check_png(tmp_path / "out.png")


def test_bench_plot_option(tmp_path, capsys):
    png = tmp_path / "b.png"
    assert main(["bench", "--scale", "7", "--roots", "3", "--peers", "scipy", "--no-progress",
                 "--plot", str(png)]) == 0
    check_png(png)


def test_plot_of_something_else(tmp_path, capsys):
    (tmp_path / "x.json").write_text(json.dumps({"hello": 1}))
    assert main(["plot", str(tmp_path / "x.json"), "-o", str(tmp_path / "x.png")]) == 2
    assert "is not a benchmark record" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_missing_matplotlib_is_named(record, tmp_path, monkeypatch, capsys):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ld.MissingDependency, match=r"pip install 'lagraph-dist\[plot\]'"):
        plot_record(record, tmp_path / "never.png")
    # bench --plot says so before it builds anything
    assert main(["bench", "--scale", "7", "--roots", "2", "--plot", str(tmp_path / "b.png")]) == 2
    assert "plotting needs matplotlib" in capsys.readouterr().err
