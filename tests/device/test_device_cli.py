"""``fenix-table lights test``: printed timelines without GPIO, real (mock) pins with it."""
import pytest
from gpiozero import Device

from fenix_table import config as cfg
from fenix_table.cli import main
from fenix_table.device import lights as lights_module


@pytest.fixture
def defaults(tmp_path, monkeypatch):
    monkeypatch.delenv(cfg.ENV_VAR, raising=False)
    monkeypatch.setattr(cfg, "user_path", lambda: str(tmp_path / "none.toml"))
    monkeypatch.setattr(cfg, "SYSTEM_PATH", str(tmp_path / "none-either.toml"))
    monkeypatch.setattr(lights_module, "_warned_no_gpio", False)
    monkeypatch.setattr(Device, "pin_factory", None)


def lines_after(out, heading):
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if heading in line)
    return {line.split()[0]: line.split()[1] for line in lines[start + 1:start + 6]}


def test_without_gpio_prints_every_pattern(defaults, monkeypatch, capsys):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    assert main(["lights", "test"]) == 0
    out = capsys.readouterr().out
    capture = lines_after(out, "red must capture")
    assert capture["capture"] == "#" * 10 + "." * 10 + "#" * 10 + "." * 10
    assert capture["red_turn"] == "#" * 40
    violation = lines_after(out, ". violation:")
    assert violation["buzzer"].startswith("##..##..") and violation["violation"] == "#" * 40
    # The beeps belong to the violation only: the next pattern is silent again.
    assert lines_after(out, "violation cleared")["buzzer"] == "." * 40
    draw = lines_after(out, ". draw:")
    assert all(r != b for r, b in zip(draw["red_turn"], draw["black_turn"]))


def test_with_gpio_drives_the_configured_pins(defaults, monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    path = tmp_path / "c.toml"
    path.write_text("[gpio]\nbuzzer = false\nmove_button = 5\n")
    try:
        assert main(["--config", str(path), "lights", "test", "--hold", "0"]) == 0
        out = capsys.readouterr().out
        assert "GPIO parts in use: red_turn, black_turn, capture, violation, move_button" in out
        assert "      red_turn" not in out  # no timelines: the real LEDs show the patterns
        factory = Device.pin_factory
        # Every LED was lit at some point and is off again at the end.
        for number in (17, 27, 22, 23):
            history = [s.state for s in factory.pin(number).states]
            assert True in history and history[-1] is False, number
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.close()


def test_hold_must_be_sensible(capsys):
    with pytest.raises(SystemExit) as caught:
        main(["lights", "test", "--hold", "-1"])
    assert caught.value.code == 2
    assert "--hold: expected 0-60 seconds" in capsys.readouterr().err
