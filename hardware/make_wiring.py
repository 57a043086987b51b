#!/usr/bin/env python3
"""Draws ``hardware/wiring.svg`` from the pin map below (the same pins as the default
configuration, ``[gpio]`` in ``systemd/config.toml``). Run after changing a pin:

    python3 hardware/make_wiring.py > hardware/wiring.svg
"""
from __future__ import annotations

from xml.sax.saxutils import escape

# Header pin -> name, for the 40-pin header of every Raspberry Pi since the B+.
HEADER = {
    1: "3V3", 2: "5V", 3: "GPIO2", 4: "5V", 5: "GPIO3", 6: "GND", 7: "GPIO4", 8: "GPIO14",
    9: "GND", 10: "GPIO15", 11: "GPIO17", 12: "GPIO18", 13: "GPIO27", 14: "GND",
    15: "GPIO22", 16: "GPIO23", 17: "3V3", 18: "GPIO24", 19: "GPIO10", 20: "GND",
    21: "GPIO9", 22: "GPIO25", 23: "GPIO11", 24: "GPIO8", 25: "GND", 26: "GPIO7",
    27: "GPIO0", 28: "GPIO1", 29: "GPIO5", 30: "GND", 31: "GPIO6", 32: "GPIO12",
    33: "GPIO13", 34: "GND", 35: "GPIO19", 36: "GPIO16", 37: "GPIO26", 38: "GPIO20",
    39: "GND", 40: "GPIO21",
}

# (config key, BCM GPIO, kind, colour, what it is)
PARTS = [
    ("red_turn", 17, "led", "#2e9d3a", "green LED at Red's corner: Red to move"),
    ("black_turn", 27, "led", "#2e9d3a", "green LED at Black's corner: Black to move"),
    ("capture", 22, "led", "#e0a800", "yellow LED: capture compulsory"),
    ("violation", 23, "led", "#d22", "red LED: violation / out of sync"),
    ("buzzer", 24, "buzzer", "#555", "active 5 V buzzer via NPN transistor"),
    ("move_button", 5, "button", "#1f5fbf", "optional: move-done push button"),
    ("clock_red", 6, "button", "#1f5fbf", "optional: Red's chess-clock button"),
    ("clock_black", 13, "button", "#1f5fbf", "optional: Black's chess-clock button"),
]

PIN_OF_GPIO = {int(name[4:]): pin for pin, name in HEADER.items() if name.startswith("GPIO")}

X_ODD, X_EVEN, Y0, STEP = 120, 144, 90, 24
ROW0, ROW_STEP = 150, 62
PART_X, GND_X, WIDTH, HEIGHT = 390, 860, 900, 700
FIVE_V_Y = 62


def pin_xy(pin: int) -> tuple[int, int]:
    return (X_ODD if pin % 2 else X_EVEN), Y0 + (pin - 1) // 2 * STEP


def text(x, y, s, size=11, anchor="start", weight="normal", fill="#222"):
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(s)}</text>')


def line(points, colour="#222", width=1.6):
    pts = " ".join(f"{x},{y}" for x, y in points)
    return f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="{width}"/>'


def resistor(x, y, label):
    return [f'<rect x="{x}" y="{y - 6}" width="44" height="12" fill="#f4e3c1" stroke="#222"/>',
            text(x + 22, y - 10, label, 10, "middle")]


def led(x, y, colour):
    return [f'<polygon points="{x},{y - 9} {x},{y + 9} {x + 16},{y}" fill="{colour}" stroke="#222"/>',
            line([(x + 16, y - 9), (x + 16, y + 9)], width=2),
            line([(x + 6, y - 12), (x + 14, y - 20)], colour, 1.2),
            line([(x + 12, y - 12), (x + 20, y - 20)], colour, 1.2)]


def ground(x, y):
    return [line([(x - 9, y), (x + 9, y)], width=2), line([(x - 6, y + 4), (x + 6, y + 4)]),
            line([(x - 3, y + 8), (x + 3, y + 8)])]


def svg() -> str:
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">',
           '<rect width="100%" height="100%" fill="white"/>',
           text(20, 26, "Fenix Table: LEDs, buzzer and buttons on the Raspberry Pi GPIO header",
                15, weight="bold"),
           text(20, 44, "BCM numbers as in [gpio] of config.toml. LEDs active high; buttons "
                "to GND (internal pull-ups).", 11)]
    # Header.
    out.append(f'<rect x="{X_ODD - 14}" y="{Y0 - 14}" width="{X_EVEN - X_ODD + 28}" '
               f'height="{19 * STEP + 28}" rx="4" fill="#333"/>')
    used = {PIN_OF_GPIO[gpio] for _, gpio, _, _, _ in PARTS} | {2, 39}
    for pin, name in HEADER.items():
        x, y = pin_xy(pin)
        fill = "#f5c542" if pin in used else ("#888" if name == "GND" else "#ccc")
        out.append(f'<circle cx="{x}" cy="{y}" r="7" fill="{fill}" stroke="#111"/>')
        out.append(text(x, y + 3, str(pin), 7, "middle", fill="#000"))
        label_x, anchor = (x - 12, "end") if pin % 2 else (x + 12, "start")
        weight = "bold" if pin in used else "normal"
        out.append(text(label_x, y + 4, name, 10, anchor, weight))
    out.append(text(X_ODD + 12, Y0 + 19 * STEP + 34, "40-pin header (pin 1 top left)", 10, "middle"))
    # 5 V rail (for the buzzer) from pin 2 along the top.
    x2, y2 = pin_xy(2)
    out.append(line([(x2, y2), (x2 + 8, y2 - 12), (x2 + 8, FIVE_V_Y), (GND_X - 110, FIVE_V_Y)], "#c0392b", 2))
    out.append(text(x2 + 80, FIVE_V_Y - 4, "5V (pin 2)", 10, fill="#c0392b"))
    # GND bus on the right, back to pin 39 along the bottom.
    x39, y39 = pin_xy(39)
    bottom = ROW0 + (len(PARTS) - 1) * ROW_STEP + 50
    out.append(line([(GND_X, ROW0 - 20), (GND_X, bottom), (x39 - 30, bottom), (x39 - 30, y39),
                     (x39, y39)], "#000", 2.2))
    out.append(text(GND_X - 6, bottom - 6, "GND (pin 39, or any GND pin)", 10, "end"))
    # The buzzer row goes first, right under the 5 V rail it hangs from.
    ordered = sorted(PARTS, key=lambda part: part[2] != "buzzer")
    for i, (key, gpio, kind, colour, what) in enumerate(ordered):
        pin = PIN_OF_GPIO[gpio]
        px, py = pin_xy(pin)
        row_y = ROW0 + i * ROW_STEP
        # Later rows turn down earlier, so a wire never runs across the one above it.
        lane = 350 - i * 12
        wire = "#666" if kind != "led" else colour
        # Odd and even pins of one header row leave on two different tracks.
        track = py + (15 if pin % 2 else 9)
        out.append(line([(px, py), (px + 10, track), (lane, track), (lane, row_y),
                         (PART_X, row_y)], wire))
        label_y = row_y + 30 if kind == "buzzer" else row_y - 26
        out.append(text(PART_X - 6, label_y, f"{key} = {gpio}  (GPIO{gpio}, pin {pin})", 11,
                        weight="bold"))
        out.append(text(PART_X - 6, label_y + (14 if kind == "buzzer" else 48), what, 10,
                        fill="#444"))
        if kind == "led":
            out += resistor(PART_X, row_y, "330 Ω")
            out.append(line([(PART_X + 44, row_y), (PART_X + 110, row_y)]))
            out += led(PART_X + 110, row_y, colour)
            out.append(line([(PART_X + 126, row_y), (GND_X, row_y)]))
        elif kind == "buzzer":
            out += resistor(PART_X, row_y, "1 kΩ")
            bx = PART_X + 150  # transistor base
            out.append(line([(PART_X + 44, row_y), (bx, row_y)]))
            out.append(f'<circle cx="{bx + 14}" cy="{row_y}" r="16" fill="none" stroke="#222"/>')
            out.append(line([(bx + 6, row_y - 10), (bx + 6, row_y + 10)], width=2.4))
            out.append(line([(bx + 6, row_y - 4), (bx + 22, row_y - 16), (bx + 22, row_y - 30)]))
            out.append(line([(bx + 6, row_y + 4), (bx + 22, row_y + 16), (bx + 22, row_y + 16),
                             (GND_X, row_y + 16)]))
            out.append(text(bx + 40, row_y + 4, "NPN (BC337 / 2N2222A)", 10))
            out.append(text(bx + 26, row_y + 30, "E", 9))
            out.append(text(bx + 26, row_y - 22, "C", 9))
            # Buzzer between collector and 5 V, with a flyback diode across it.
            top = FIVE_V_Y
            out.append(line([(bx + 22, row_y - 30), (bx + 22, row_y - 36)]))
            out.append(f'<rect x="{bx + 10}" y="{row_y - 58}" width="24" height="22" rx="11" '
                       f'fill="#444" stroke="#222"/>')
            out.append(text(bx + 22, row_y - 44, "BZ", 8, "middle", fill="#fff"))
            out.append(line([(bx + 22, row_y - 58), (bx + 22, top)], "#c0392b", 2))
            dx = bx + 70
            out.append(line([(bx + 22, row_y - 33), (dx, row_y - 33), (dx, row_y - 40)]))
            out.append(f'<polygon points="{dx - 7},{row_y - 40} {dx + 7},{row_y - 40} {dx},{row_y - 52}" '
                       f'fill="#fff" stroke="#222"/>')
            out.append(line([(dx - 7, row_y - 53), (dx + 7, row_y - 53)], width=2))
            out.append(line([(dx, row_y - 53), (dx, row_y - 62), (bx + 22, row_y - 62)]))
            out.append(text(dx + 10, row_y - 44, "1N4148", 9))
        else:
            sx = PART_X + 110
            out.append(line([(PART_X, row_y), (sx, row_y)]))
            out.append(f'<circle cx="{sx}" cy="{row_y}" r="3" fill="#222"/>')
            out.append(f'<circle cx="{sx + 34}" cy="{row_y}" r="3" fill="#222"/>')
            out.append(line([(sx, row_y), (sx + 32, row_y - 12)], width=2))
            out.append(line([(sx + 16, row_y - 14), (sx + 16, row_y - 22), (sx + 6, row_y - 22),
                             (sx + 26, row_y - 22)]))
            out.append(line([(sx + 34, row_y), (GND_X, row_y)]))
    out += ground(GND_X, bottom + 4)
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(svg(), end="")
