"""hardware/: the wiring diagram, pin map, camera arithmetic and arm design agree with the
configuration defaults and with the scripts that produce them."""
import importlib.util
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fenix_table.config import PIN_NAMES, RGB_PINS, Config, GpioConfig, load_config

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
EXAMPLE = HARDWARE.parent / "systemd" / "config.toml"


def load(name):
    spec = importlib.util.spec_from_file_location(name, HARDWARE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pinmap_rows():
    rows = {}
    for line in (HARDWARE / "pinmap.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] in PIN_NAMES:
            rows[cells[0]] = (int(cells[1]), int(cells[2]))
    return rows


def test_wiring_svg_is_current_and_well_formed():
    wiring = load("make_wiring")
    assert (HARDWARE / "wiring.svg").read_text() == wiring.svg(), \
        "run: python3 hardware/make_wiring.py > hardware/wiring.svg"
    root = ET.fromstring(wiring.svg())
    assert root.tag.endswith("svg")


def test_pin_map_diagram_and_config_agree():
    wiring = load("make_wiring")
    drawn = {key: gpio for key, gpio, _, _, _ in wiring.PARTS}
    # The diagram shows the two turn LEDs; the RGB alternative is in the pin map only.
    assert set(drawn) == set(PIN_NAMES) - set(RGB_PINS)
    table = pinmap_rows()
    assert set(table) == set(PIN_NAMES)
    header = {pin: name for pin, name in wiring.HEADER.items()}
    for key, (gpio, physical) in table.items():
        assert drawn.get(key, gpio) == gpio, key
        assert header[physical] == f"GPIO{gpio}", (key, physical)
    # Parts fitted by default are wired where the default configuration expects them.
    for key, gpio in GpioConfig().pins().items():
        assert table[key][0] == gpio, key
    # The optional parts documented in the pin map are a valid configuration together.
    buttons = {k: table[k][0] for k in ("move_button", "clock_red", "clock_black", *RGB_PINS)}
    text = "[gpio]\n" + "".join(f"{k} = {v}\n" for k, v in buttons.items())
    assert Config.from_toml(text).gpio.pins() == {**GpioConfig().pins(), **buttons}
    # The example config's comments suggest the same button pins.
    example = EXAMPLE.read_text()
    for key, gpio in buttons.items():
        assert re.search(rf"^{key} = false\s+# e\.g\. {gpio}:", example, re.M), key


def test_camera_table_in_the_doc_is_the_scripts_output():
    fov = load("camera_fov")
    assert fov.table() in (HARDWARE / "camera.md").read_text()


def test_camera_heights_cover_the_board_with_margin():
    fov = load("camera_fov")
    field = fov.BOARD_CM + 2 * fov.MARGIN_CM
    for name, (hfov, vfov, _) in fov.CAMERAS.items():
        h = fov.height_for(field, vfov)
        # Going back from height to field gives the board plus margin on the narrow side.
        assert math.isclose(2 * h * math.tan(math.radians(vfov / 2)), field)
        assert fov.field_at(h, hfov) >= field  # the wide side covers more
    # Published figures for the recommendation (Camera Module 3 at ~64 cm).
    assert round(fov.height_for(48, 41), 1) == 64.2
    assert round(fov.height_for(48, 48.8), 1) == 52.9
    # Example config frame size is what the pixel figures assume.
    assert (load_config(str(EXAMPLE)).camera.width, load_config(str(EXAMPLE)).camera.height) \
        == fov.FRAME_PX


@pytest.mark.parametrize("part", ["clamp", "elbow", "camera"])
def test_arm_parts_render_to_stl(tmp_path, part):
    openscad = shutil.which("openscad")
    if openscad is None:
        pytest.skip("openscad not installed")
    out = tmp_path / f"{part}.stl"
    result = subprocess.run([openscad, "-q", "-D", f'part="{part}"', "-o", str(out),
                             str(HARDWARE / "camera_arm.scad")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr and "ERROR" not in result.stderr, result.stderr
    vertices = re.findall(r"vertex\s+(\S+)\s+(\S+)\s+(\S+)", out.read_text())
    assert len(vertices) > 100
    extent = [max(float(v[i]) for v in vertices) - min(float(v[i]) for v in vertices)
              for i in range(3)]
    assert all(10 < e < 200 for e in extent), extent  # printable on a normal bed
