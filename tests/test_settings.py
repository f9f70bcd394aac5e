"""The settings object (lagraph_dist.core.settings): read where used, so a change takes effect
at once and ``changed`` restores what was there; an unknown name is refused."""
import pytest

import lagraph_dist as ld
from lagraph_dist.algebra import memory
from lagraph_dist.core.settings import Settings, settings


def test_a_change_is_read_where_the_setting_is_used():
    n = 1 << 10
    held = memory.results_ahead_bytes(n)
    assert held > 0
    with settings.changed(results_ahead_bytes=0):
        assert memory.results_ahead_bytes(n) == 0
    assert memory.results_ahead_bytes(n) == held


def test_changed_restores_after_an_error_and_refuses_unknown_names():
    before = settings.sync_stage_timers
    with pytest.raises(RuntimeError):
        with settings.changed(sync_stage_timers=not before):
            assert settings.sync_stage_timers is (not before)
            raise RuntimeError
    assert settings.sync_stage_timers is before
    with pytest.raises(AttributeError, match="no setting named fuse_everything"):
        with settings.changed(fuse_everything=True):
            pass


def test_stage_timing_of_the_command_line_sets_it(tmp_path, capsys):
    from helpers import run_cli
    before = settings.sync_stage_timers
    try:
        status, _, _ = run_cli(capsys, "bfs", "--scale", "6", "--roots", "1", "--backend", "cpu", "--stage-timing")
        assert status == 0 and settings.sync_stage_timers is True
    finally:
        settings.sync_stage_timers = before


def test_defaults():
    fresh = Settings()
    assert (fresh.sync_stage_timers, fresh.results_ahead_bytes, fresh.fused_records_read,
            fresh.extra_cuda_defines, fresh.marked_searches) == (False, 256 << 20, 4096, (), "auto")
    assert ld.__name__ == "lagraph_dist"


def test_every_cuda_build_names_the_sources_digest_and_the_extra_defines(monkeypatch):
    """The digest of all shipped sources is a define of every build (CuPy's cache key holds a
    module's own text, not its headers'), and ``extra_cuda_defines`` come last."""
    from lagraph_dist.local.gpu_kernels import base
    options = base.build_options("/kernels")
    assert options[:2] == ("-std=c++17", "-I/kernels")
    assert f"-DLD_SOURCES_DIGEST=0x{base.sources_digest()}" in options
    with settings.changed(extra_cuda_defines=("-DLD_FUSED_TRACE=1",)):
        assert base.build_options("/kernels")[-1] == "-DLD_FUSED_TRACE=1"
    sources = base.kernel_sources()
    edited = dict(sources, **{"fused_base.cuh": sources["fused_base.cuh"] + "\n// edited\n"})
    base.sources_digest.cache_clear()
    monkeypatch.setattr(base, "kernel_sources", lambda: edited)
    try:
        assert f"-DLD_SOURCES_DIGEST=0x{base.sources_digest()}" not in options
    finally:
        base.sources_digest.cache_clear()


def test_the_package_names_the_one_settings_object():
    """``ld.settings`` (docs/api.md's "Settings") is the object the package reads."""
    assert ld.settings is settings
    assert "settings" in ld.__all__
