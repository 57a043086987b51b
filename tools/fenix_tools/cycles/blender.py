"""Build and render scene specs with Blender's Cycles; run by the bpy venv's python.

    .venv-cycles/bin/python tools/fenix_tools/cycles/blender.py JOBS.json

``JOBS.json`` is a list of scene specs written by :mod:`fenix_tools.cycles.room` (see
:func:`render` for what each holds). Each is rendered in turn, through a pinhole camera
(lens distortion is added afterwards) and saved as the film's linear RGB (float16
``.npy``, first row at the top) at the spec's ``out`` path, with the process CPU
seconds the render took in ``out + ".seconds"``. Specs whose ``out`` already exists are
skipped.

This file imports only bpy, numpy and the standard library: it runs in a venv of its own
(bpy pins numpy < 2, which the project's environment cannot have).
"""
import json
import math
import os
import sys
import time

import bpy
import numpy as np


# --------------------------------------------------------------------------- meshes

def lathe(name, profile, segments=48):
    """A mesh turned about ``z`` from ``profile`` ((r, z) from the bottom pole to the top
    pole, both ends on the axis), smooth shaded."""
    verts, faces = [], []
    inner = profile[1:-1]
    n = len(inner)
    for t in range(segments):
        a = 2 * math.pi * t / segments
        for r, z in inner:
            verts.append((r * math.cos(a), r * math.sin(a), z))
    bottom, top = len(verts), len(verts) + 1
    verts.append((0.0, 0.0, profile[0][1]))
    verts.append((0.0, 0.0, profile[-1][1]))
    for t in range(segments):
        t2 = (t + 1) % segments
        faces.append((bottom, t2 * n, t * n))
        for i in range(n - 1):
            faces.append((t * n + i, t2 * n + i, t2 * n + i + 1, t * n + i + 1))
        faces.append((t * n + n - 1, t2 * n + n - 1, top))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    for poly in mesh.polygons:
        poly.use_smooth = True
    return mesh


def stone_profile(radius, thickness, bevel, dome):
    """A stone's side view: flat base, rims rounded by ``bevel * thickness``, the top
    rising ``dome * thickness`` towards the centre."""
    b = min(max(1e-3, bevel * thickness), 0.49 * thickness, 0.9 * radius)
    prof = [(0.0, 0.0)]
    for k in range(7):
        a = -math.pi / 2 + k * (math.pi / 2) / 6
        prof.append((radius - b + b * math.cos(a), b + b * math.sin(a)))
    for k in range(7):
        a = k * (math.pi / 2) / 6
        prof.append((radius - b + b * math.cos(a), thickness - b + b * math.sin(a)))
    rim = radius - b
    for k in range(1, 6):
        s = rim * (1 - k / 6)
        prof.append((s, thickness + dome * thickness * (1 - (s / rim) ** 2)))
    prof.append((0.0, thickness + dome * thickness))
    return prof


def capsule_profile(radius, length):
    prof = [(0.0, -radius)]
    for k in range(1, 8):
        a = -math.pi / 2 + k * (math.pi / 2) / 8
        prof.append((radius * math.cos(a), radius * math.sin(a)))
    for k in range(0, 8):
        a = k * (math.pi / 2) / 8
        prof.append((radius * math.cos(a), length + radius * math.sin(a)))
    prof.append((0.0, length + radius))
    return prof


def plane(name, x0, y0, w, h, z):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(x0, y0, z), (x0 + w, y0, z), (x0 + w, y0 + h, z), (x0, y0 + h, z)], [], [(0, 1, 2, 3)])
    uv = mesh.uv_layers.new(name="UVMap")
    for loop, (u, v) in zip(uv.data, ((0, 0), (1, 0), (1, 1), (0, 1))):
        loop.uv = (u, v)
    mesh.update()
    return mesh


def box(name, x0, y0, x1, y1, z0, z1):
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
         (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    f = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(v, [], f)
    mesh.update()
    return mesh


def place(name, mesh, matrix=None, location=None, rot_z=0.0):
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    if matrix is not None:
        obj.matrix_world = matrix
    else:
        obj.location = location or (0, 0, 0)
        obj.rotation_euler = (0, 0, rot_z)
    return obj


# --------------------------------------------------------------------------- materials

def material(name):
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    bsdf = nodes.get("Principled BSDF")
    return mat, nodes, mat.node_tree.links, bsdf


def rgba(c):
    return (float(c[0]), float(c[1]), float(c[2]), 1.0)


def ramp(nodes, links, fac_socket, colours, positions=None, constant=False):
    node = nodes.new("ShaderNodeValToRGB")
    if constant:
        node.color_ramp.interpolation = "CONSTANT"
    els = node.color_ramp.elements
    positions = positions or [i / max(1, len(colours) - 1) for i in range(len(colours))]
    while len(els) < len(colours):
        els.new(0.5)
    for el, c, p in zip(els, colours, positions):
        el.position = p
        el.color = rgba(c)
    links.new(fac_socket, node.inputs["Fac"])
    return node.outputs["Color"]


def mapping(nodes, links, coords="Object", scale=(1, 1, 1), angle=0.0, offset=(0, 0, 0)):
    tc = nodes.new("ShaderNodeTexCoord")
    mp = nodes.new("ShaderNodeMapping")
    mp.inputs["Scale"].default_value = scale
    mp.inputs["Rotation"].default_value = (0, 0, angle)
    mp.inputs["Location"].default_value = offset
    links.new(tc.outputs[coords], mp.inputs["Vector"])
    return mp.outputs["Vector"]


def bump(nodes, links, bsdf, height_socket, strength, distance=0.02):
    node = nodes.new("ShaderNodeBump")
    node.inputs["Strength"].default_value = strength
    node.inputs["Distance"].default_value = distance
    links.new(height_socket, node.inputs["Height"])
    links.new(node.outputs["Normal"], bsdf.inputs["Normal"])


def stone_material(name, spec):
    mat, nodes, links, bsdf = material(name)
    kind = spec["kind"]
    bsdf.inputs["Base Color"].default_value = rgba(spec["rgb"])
    bsdf.inputs["Roughness"].default_value = spec["roughness"]
    bsdf.inputs["IOR"].default_value = 1.5
    if spec.get("coat", 0) > 0:
        bsdf.inputs["Coat Weight"].default_value = spec["coat"]
        bsdf.inputs["Coat Roughness"].default_value = spec["coat_roughness"]
    if kind == "wood":
        vec = mapping(nodes, links, "Object", scale=(1, 1, 1), angle=spec["grain_angle"])
        wave = nodes.new("ShaderNodeTexWave")
        wave.wave_type = "RINGS"
        wave.inputs["Scale"].default_value = spec["grain_scale"]
        wave.inputs["Distortion"].default_value = 4.0
        wave.inputs["Detail"].default_value = 3.0
        links.new(vec, wave.inputs["Vector"])
        dark = [v * 0.55 for v in spec["rgb"]]
        links.new(ramp(nodes, links, wave.outputs["Fac"], [dark, spec["rgb"]]), bsdf.inputs["Base Color"])
    elif kind == "painted":
        noise = nodes.new("ShaderNodeTexNoise")
        noise.inputs["Scale"].default_value = spec["grain_scale"]
        noise.inputs["Detail"].default_value = 8.0
        lighter = [min(1.0, v * 1.5 + 0.03) for v in spec["rgb"]]
        links.new(ramp(nodes, links, noise.outputs["Fac"], [spec["rgb"], spec["rgb"], lighter],
                       [0.0, 0.6, 1.0]), bsdf.inputs["Base Color"])
        bump(nodes, links, bsdf, noise.outputs["Fac"], 0.15, 0.01)
    elif kind == "glass":
        bsdf.inputs["Transmission Weight"].default_value = spec["transmission"]
    return mat


def face_material(spec):
    mat, nodes, links, bsdf = material("face")
    img = nodes.new("ShaderNodeTexImage")
    img.image = bpy.data.images.load(spec["image"])
    img.image.colorspace_settings.name = "sRGB"
    img.extension = "EXTEND"
    img.interpolation = "Cubic"
    links.new(img.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = spec["roughness"]
    bsdf.inputs["Specular IOR Level"].default_value = spec["specular"]
    if spec["coat"] > 0:
        bsdf.inputs["Coat Weight"].default_value = spec["coat"]
        bsdf.inputs["Coat Roughness"].default_value = spec["coat_roughness"]
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = 40.0
    noise.inputs["Detail"].default_value = 6.0
    bump(nodes, links, bsdf, noise.outputs["Fac"], spec["bump"], 0.005)
    return mat


def plain_material(name, rgb, roughness, subsurface=0.0):
    mat, nodes, links, bsdf = material(name)
    bsdf.inputs["Base Color"].default_value = rgba(rgb)
    bsdf.inputs["Roughness"].default_value = roughness
    if subsurface > 0:
        bsdf.inputs["Subsurface Weight"].default_value = subsurface
        bsdf.inputs["Subsurface Radius"].default_value = (0.03, 0.012, 0.008)
    return mat


def table_material(spec):
    """Wood planks, a checked, striped or plain cloth, or glazed tiles, all procedural in
    Blender's nodes."""
    mat, nodes, links, bsdf = material("table")
    kind, cols = spec["pattern"], spec["colours"]
    bsdf.inputs["Roughness"].default_value = spec["roughness"]
    bsdf.inputs["Specular IOR Level"].default_value = spec["specular"]
    vec = mapping(nodes, links, "Object", scale=(1 / spec["period"],) * 3, angle=spec["angle"],
                  offset=tuple(spec["offset"]))
    if kind == "wood":
        wave = nodes.new("ShaderNodeTexWave")
        wave.wave_type = "BANDS"
        wave.bands_direction = "Y"
        wave.inputs["Scale"].default_value = spec["grain"]
        wave.inputs["Distortion"].default_value = spec["distortion"]
        wave.inputs["Detail"].default_value = 4.0
        wave.inputs["Detail Scale"].default_value = 1.5
        links.new(vec, wave.inputs["Vector"])
        grain = ramp(nodes, links, wave.outputs["Fac"], [cols[0], cols[1]])
        planks = nodes.new("ShaderNodeTexBrick")
        planks.inputs["Scale"].default_value = 1.0
        planks.inputs["Mortar Size"].default_value = spec["gap"]
        planks.inputs["Brick Width"].default_value = 6.0
        planks.inputs["Row Height"].default_value = 1.0
        planks.inputs["Color1"].default_value = (1, 1, 1, 1)
        planks.inputs["Color2"].default_value = (0.8, 0.8, 0.8, 1)
        planks.inputs["Mortar"].default_value = (0.25, 0.25, 0.25, 1)
        links.new(vec, planks.inputs["Vector"])
        mix = nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MULTIPLY"
        mix.inputs["Fac"].default_value = 1.0
        links.new(grain, mix.inputs["Color1"])
        links.new(planks.outputs["Color"], mix.inputs["Color2"])
        links.new(mix.outputs["Color"], bsdf.inputs["Base Color"])
        bump(nodes, links, bsdf, wave.outputs["Fac"], 0.1, 0.01)
        return mat
    if kind in ("check", "stripe"):
        # Woven bands: one wave along x, for checks another along y; where both cross
        # the colours mix as in gingham.
        shares = []
        for axis in ("X", "Y")[:2 if kind == "check" else 1]:
            wave = nodes.new("ShaderNodeTexWave")
            wave.wave_type = "BANDS"
            wave.bands_direction = axis
            wave.wave_profile = "SAW"
            wave.inputs["Scale"].default_value = 1.0
            links.new(vec, wave.inputs["Vector"])
            step = nodes.new("ShaderNodeMath")
            step.operation = "GREATER_THAN"
            step.inputs[1].default_value = spec["duty"]
            links.new(wave.outputs["Fac"], step.inputs[0])
            shares.append(step.outputs["Value"])
        if len(shares) == 2:
            add = nodes.new("ShaderNodeMath")
            add.operation = "ADD"
            links.new(shares[0], add.inputs[0])
            links.new(shares[1], add.inputs[1])
            half = nodes.new("ShaderNodeMath")
            half.operation = "MULTIPLY"
            half.inputs[1].default_value = 0.5
            links.new(add.outputs["Value"], half.inputs[0])
            fac = half.outputs["Value"]
            colours = [cols[0], [(a + b) / 2 for a, b in zip(cols[0], cols[1])], cols[1]]
            colour = ramp(nodes, links, fac, colours, [0.0, 0.3, 0.7], constant=True)
        else:
            colour = ramp(nodes, links, shares[0], [cols[0], cols[1]], [0.0, 0.5], constant=True)
        weave = nodes.new("ShaderNodeTexNoise")
        weave.inputs["Scale"].default_value = 300.0
        links.new(colour, bsdf.inputs["Base Color"])
        bump(nodes, links, bsdf, weave.outputs["Fac"], 0.3, 0.01)
        return mat
    if kind == "tiles":
        tiles = nodes.new("ShaderNodeTexBrick")
        tiles.offset = 0.0
        tiles.inputs["Scale"].default_value = 1.0
        tiles.inputs["Mortar Size"].default_value = spec["gap"]
        tiles.inputs["Brick Width"].default_value = 1.0
        tiles.inputs["Row Height"].default_value = 1.0
        tiles.inputs["Color1"].default_value = rgba(cols[0])
        tiles.inputs["Color2"].default_value = rgba([v * 0.85 for v in cols[0]])
        tiles.inputs["Mortar"].default_value = rgba(cols[1])
        links.new(vec, tiles.inputs["Vector"])
        links.new(tiles.outputs["Color"], bsdf.inputs["Base Color"])
        bump(nodes, links, bsdf, tiles.outputs["Fac"], 0.3, 0.02)
        return mat
    noise = nodes.new("ShaderNodeTexNoise")
    noise.inputs["Scale"].default_value = spec["grain"]
    noise.inputs["Detail"].default_value = 10.0
    links.new(vec, noise.inputs["Vector"])
    links.new(ramp(nodes, links, noise.outputs["Fac"], [cols[0], cols[1]], [0.3, 0.7]), bsdf.inputs["Base Color"])
    bump(nodes, links, bsdf, noise.outputs["Fac"], 0.2, 0.01)
    return mat


# --------------------------------------------------------------------------- scene

def look_at_matrix(location, direction):
    """World matrix of a light at ``location`` shining along ``direction`` (a light's
    local -z)."""
    from mathutils import Matrix, Vector

    d = Vector(direction).normalized()
    up = Vector((0, 0, 1)) if abs(d.z) < 0.99 else Vector((0, 1, 0))
    x = up.cross(-d).normalized()
    y = (-d).cross(x)
    m = Matrix((x, y, -d)).transposed().to_4x4()
    m.translation = Vector(location)
    return m


def add_light(i, spec):
    kind = spec["kind"]
    data = bpy.data.lights.new(f"light{i}", {"point": "POINT", "spot": "SPOT", "area": "AREA", "sun": "SUN"}[kind])
    data.color = spec["rgb"]
    data.energy = spec["power"]
    if kind == "sun":
        data.angle = math.radians(spec["size"])
    if kind in ("point", "spot"):
        data.shadow_soft_size = spec["size"]
    if kind == "spot":
        data.spot_size = math.radians(spec["cone"])
        data.spot_blend = spec["blend"]
    if kind == "area":
        data.shape = spec.get("shape", "DISK")
        data.size = spec["size"]
    obj = bpy.data.objects.new(f"light{i}", data)
    bpy.context.scene.collection.objects.link(obj)
    obj.matrix_world = look_at_matrix(spec["location"], spec["direction"])
    obj.visible_camera = False


def build(spec):
    from mathutils import Matrix

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    r = spec["render"]
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = int(r["samples"])
    scene.cycles.use_adaptive_sampling = True
    scene.cycles.use_denoising = True
    scene.cycles.denoiser = "OPENIMAGEDENOISE"
    scene.cycles.seed = int(r["seed"])
    scene.cycles.max_bounces = 6
    scene.cycles.caustics_reflective = False
    scene.cycles.caustics_refractive = False
    scene.cycles.sample_clamp_indirect = 10.0
    scene.render.threads_mode = "FIXED"
    scene.render.threads = int(r["threads"])
    scene.render.resolution_x, scene.render.resolution_y = int(r["width"]), int(r["height"])
    scene.render.resolution_percentage = 100
    scene.render.film_transparent = False
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    scene.view_settings.view_transform = "Standard"
    # World light: a uniform room glow.
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    bg.inputs["Color"].default_value = rgba(spec["world"]["rgb"])
    bg.inputs["Strength"].default_value = spec["world"]["strength"]
    scene.world = world
    # Camera.
    c = spec["camera"]
    cam = bpy.data.cameras.new("camera")
    cam.sensor_fit = "HORIZONTAL"
    cam.sensor_width = 36.0
    cam.lens = c["lens_mm"]
    cam.clip_start, cam.clip_end = 0.5, 1000.0
    if c.get("dof"):
        cam.dof.use_dof = True
        cam.dof.focus_distance = c["dof"]["focus"]
        cam.dof.aperture_fstop = c["dof"]["fstop"]
    cam_obj = bpy.data.objects.new("camera", cam)
    scene.collection.objects.link(cam_obj)
    cam_obj.matrix_world = Matrix(c["matrix_world"])
    scene.camera = cam_obj
    for i, light in enumerate(spec["lights"]):
        add_light(i, light)
    # Board: the printed face on a slab.
    b = spec["board"]
    x0, y0 = b["origin"]
    w, h = b["size"]
    face = place("face", plane("face", x0, y0, w, h, 0.0))
    face.data.materials.append(face_material(b))
    slab = place("slab", box("slab", x0, y0, x0 + w, y0 + h, -b["thickness"], -0.001))
    slab.data.materials.append(plain_material("edge", b["edge_rgb"], 0.6))
    # Table.
    t = spec["table"]
    half = t["size"] / 2
    cx, cy = t["centre"]
    top = place("table", plane("table", cx - half, cy - half, 2 * half, 2 * half, -b["thickness"]))
    top.data.materials.append(table_material(t))
    # Stones: one mesh per colour, linked copies.
    s = spec["stone_shape"]
    prof = stone_profile(s["radius"], s["thickness"], s["bevel"], s["dome"])
    meshes = {}
    for colour in ("red", "black"):
        mesh = lathe(f"stone_{colour}", prof)
        mesh.materials.append(stone_material(colour, spec["stone_materials"][colour]))
        meshes[colour] = mesh
    for i, (x, y, z, colour, angle) in enumerate(spec["stones"]):
        place(f"stone{i}", meshes[colour], location=(x, y, z + 1e-4), rot_z=angle)
    # Hand and sleeve: capsules.
    hand = spec.get("hand")
    if hand:
        skin = plain_material("skin", hand["skin"], hand["skin_roughness"], subsurface=0.5)
        sleeve = plain_material("sleeve", hand["sleeve"], 0.85)
        for i, (p0, p1, radius, is_sleeve) in enumerate(hand["capsules"]):
            from mathutils import Vector

            a, bvec = Vector(p0), Vector(p1)
            axis = bvec - a
            length = axis.length
            mesh = lathe(f"hand{i}", capsule_profile(radius, length), segments=24)
            mesh.materials.append(sleeve if is_sleeve else skin)
            rot = (axis.normalized() if length > 1e-6 else Vector((0, 0, 1))).to_track_quat("Z", "Y").to_matrix().to_4x4()
            rot.translation = a
            place(f"hand{i}", mesh, matrix=rot)
    return scene


def render(spec):
    """Render one spec; its film's linear RGB goes to ``spec["out"]`` (float16 .npy)."""
    scene = build(spec)
    exr = spec["out"] + ".exr"
    scene.render.filepath = exr
    t0 = time.process_time()
    bpy.ops.render.render(write_still=True)
    seconds = time.process_time() - t0
    img = bpy.data.images.load(exr)
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    rgb = px.reshape(h, w, 4)[::-1, :, :3]
    np.save(spec["out"] + ".part.npy", rgb.astype(np.float16))
    os.replace(spec["out"] + ".part.npy", spec["out"])
    os.remove(exr)
    with open(spec["out"] + ".seconds", "w") as fh:
        fh.write(f"{seconds:.3f}\n")


def main(argv):
    with open(argv[0]) as fh:
        jobs = json.load(fh)
    for spec in jobs:
        if os.path.exists(spec["out"]):
            continue
        render(spec)
        print(f"rendered {spec['out']}", flush=True)
    return 0


if __name__ == "__main__":
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    sys.exit(main(argv))
