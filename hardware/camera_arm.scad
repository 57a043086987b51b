// Fenix Table camera arm: three printed parts and two pieces of 20 mm tube.
//
//   table-edge clamp --(vertical tube, ~65 cm)--> elbow --(horizontal tube, ~25 cm)--> camera mount
//
// The camera looks straight down at the middle of the board from the lens height worked
// out in camera.md (64 cm for Camera Module 3). Tubes: 20 mm aluminium tube or a 20 mm
// wooden dowel. Print in PETG or PLA, 4 walls, 30 % infill; no supports except the clamp's
// nut trap bridge.
//
// Render one part at a time, e.g.
//   openscad -D 'part="clamp"' -o clamp.stl hardware/camera_arm.scad
// part = "clamp" | "elbow" | "camera" | "all" (an assembly preview, not for printing)

part = "all";

tube_d = 20;          // tube outer diameter
fit = 0.4;            // clearance for the tube in a socket
wall = 4;             // socket wall
socket_len = 40;      // how deep a tube goes into a socket
set_screw_d = 3.4;    // M3 set screw (self-tapping into the plastic, or with an M3 nut)

table_max = 45;       // thickest table top the clamp takes
clamp_w = 40;         // clamp width along the table edge
jaw = 12;             // jaw thickness
throat = 55;          // how far the jaws reach over the table
bolt_d = 8.5;         // M8 clamping bolt
nut_af = 13.2;        // M8 nut across flats (+ clearance)
nut_h = 7;

// Raspberry Pi Camera Module 2 / 3 board: 25 x 24 mm, four M2 holes 21 x 12.5 mm apart.
cam_board = [25, 24];
cam_holes = [21, 12.5];
cam_hole_top = 2;     // first hole row from the top edge of the board
cam_hole_d = 2.3;
lens_window = 14;     // square window for lens and autofocus housing
plate_t = 3;

$fn = 64;

socket_od = tube_d + fit + 2 * wall;

module socket(len = socket_len) {
    // A tube socket along +z with a set screw near the open end.
    difference() {
        cylinder(d = socket_od, h = len);
        translate([0, 0, wall]) cylinder(d = tube_d + fit, h = len);
        translate([0, 0, len - 10]) rotate([0, 90, 0]) cylinder(d = set_screw_d, h = socket_od);
    }
}

module clamp() {
    opening = table_max + 2;
    height = opening + 2 * jaw;
    difference() {
        union() {
            // C-frame: back bar, upper jaw, lower jaw.
            cube([jaw, clamp_w, height]);
            translate([0, 0, height - jaw]) cube([throat + jaw, clamp_w, jaw]);
            cube([throat + jaw, clamp_w, jaw]);
        }
        // Clamping bolt through the lower jaw, with a captive M8 nut.
        translate([jaw + throat * 0.6, clamp_w / 2, -1]) cylinder(d = bolt_d, h = jaw + 2);
        translate([jaw + throat * 0.6, clamp_w / 2, jaw / 2 - nut_h / 2])
            cylinder(d = nut_af / cos(30), h = nut_h, $fn = 6);
    }
    // Vertical socket standing on the upper jaw, at the back (away from the board).
    translate([jaw / 2 + socket_od / 2 - 2, clamp_w / 2, height]) socket();
}

module elbow() {
    // Two sockets at a right angle around a solid corner block.
    block = socket_od;
    translate([-block / 2, -block / 2, -block / 2]) cube([block, block, block]);
    translate([0, 0, block / 2]) socket();
    translate([block / 2, 0, 0]) rotate([0, 90, 0]) socket();
}

module camera_plate() {
    // The camera board screws to the underside, lens pointing down through the window.
    ox = (cam_board[0] - cam_holes[0]) / 2;
    difference() {
        translate([-4, -4, 0]) cube([cam_board[0] + 8, cam_board[1] + 8, plate_t]);
        for (x = [ox, ox + cam_holes[0]], y = [cam_hole_top, cam_hole_top + cam_holes[1]])
            translate([x, cam_board[1] - y, -1]) cylinder(d = cam_hole_d, h = plate_t + 2);
        translate([cam_board[0] / 2 - lens_window / 2,
                   cam_board[1] - cam_hole_top - cam_holes[1] / 2 - lens_window / 2, -1])
            cube([lens_window, lens_window, plate_t + 2]);
        // Slot for the ribbon cable at the connector edge.
        translate([cam_board[0] / 2 - 9, -5, -1]) cube([18, 3, plate_t + 2]);
    }
}

module camera_mount() {
    // The horizontal tube ends in this socket; the plate hangs below it, level.
    rotate([0, 90, 0]) socket();
    translate([socket_len - cam_board[0] - 4, -(cam_board[1] + 8) / 2 + 4,
               -socket_od / 2 - plate_t])
        camera_plate();
    // Web joining socket and plate.
    translate([0, -wall / 2, -socket_od / 2 - plate_t / 2]) cube([socket_len, wall, socket_od / 2]);
}

if (part == "clamp") clamp();
else if (part == "elbow") elbow();
else if (part == "camera") camera_mount();
else {
    clamp();
    color("silver") translate([jaw / 2 + socket_od / 2 - 2, clamp_w / 2, 80]) cylinder(d = tube_d, h = 250);
    translate([jaw / 2 + socket_od / 2 - 2, clamp_w / 2, 360]) elbow();
    color("silver") translate([jaw / 2 + socket_od / 2 + 20, clamp_w / 2, 360]) rotate([0, 90, 0])
        cylinder(d = tube_d, h = 120);
    translate([jaw / 2 + socket_od / 2 + 150, clamp_w / 2, 360]) camera_mount();
}
