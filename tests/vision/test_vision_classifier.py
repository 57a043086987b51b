"""The cell classifier seam: patches cut from the rectified board, the shipped CNN run by
cv2.dnn, the room's refitted last layer."""
import copy
import json

import numpy as np
import pytest

from fenix_table.board import cell_names, dimensions
from fenix_table.errors import ConfigError
from fenix_table.vision.classifier import (CELL, CLASSES, PATCH, CnnClassifier, RoomHead, cell_patches,
                                           net_input, shipped_classifier)
from fenix_table.vision.colour import softmax
from fenix_table.vision.types import Calibration


@pytest.mark.parametrize("board", ["9x9", "7x8"])
@pytest.mark.parametrize("ppc,pad", [(32, 16), (16, 8)])
def test_patches_are_the_cells_in_cell_name_order_with_their_context(board, ppc, pad):
    width, height = dimensions(board)
    img = np.zeros((2 * pad + height * ppc, 2 * pad + width * ppc, 3), np.uint8)
    for i in range(width * height):
        r, f = divmod(i, width)
        img[pad + r * ppc:pad + (r + 1) * ppc, pad + f * ppc:pad + (f + 1) * ppc] = (i, 255 - i, i // 2)
    patches = cell_patches(img, width, height, ppc, pad)
    assert patches.shape == (width * height, PATCH, PATCH, 3) and patches.dtype == np.uint8
    assert len(cell_names(board)) == len(patches)
    c = PATCH // 2
    for i in range(width * height):
        assert tuple(patches[i, c, c]) == (i, 255 - i, i // 2)
        r, f = divmod(i, width)
        if f + 1 < width:                  # the context to its right is the next cell
            assert patches[i, c, PATCH - 2, 0] == i + 1
        if r > 0:                          # ... and above it (rectified rows) the cell before
            assert patches[i, 1, c, 0] == i - width



@pytest.mark.parametrize("board,ppc,pad", [("9x9", 32, 16), ("7x8", 16, 8)])
def test_lab_patches_are_the_bgr_patches_converted(board, ppc, pad):
    """The reader converts the board to Lab once (``lab``): the net reads exactly what it
    would from the BGR patches converted one by one, as training converts them."""
    width, height = dimensions(board)
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (2 * pad + height * ppc, 2 * pad + width * ppc, 3), dtype=np.uint8)
    bgr = cell_patches(img, width, height, ppc, pad)
    lab = cell_patches(img, width, height, ppc, pad, lab=True)
    assert lab.dtype == np.float32 and lab.shape == bgr.shape
    blocks = shipped_classifier().blocks
    assert np.array_equal(net_input(lab, blocks), net_input(bgr, blocks))
    assert np.array_equal(net_input(lab), net_input(bgr))

def test_too_little_margin_is_an_error():
    with pytest.raises(ValueError, match="margin"):
        cell_patches(np.zeros((9 * CELL, 9 * CELL, 3), np.uint8), 9, 9, CELL, 0)


def test_net_input_ignores_the_rooms_light_level():
    """The board's colour is subtracted and its lightness divides: a frame and the same
    frame a little dimmer give nearly the same input."""
    rng = np.random.default_rng(0)
    patches = np.full((81, PATCH, PATCH, 3), 120, np.uint8)
    patches[:20, 8:16, 8:16] = (40, 40, 200)
    patches = np.clip(patches + rng.normal(0, 2, patches.shape), 0, 255).astype(np.uint8)
    dim = (patches * 0.8).astype(np.uint8)
    a, b = net_input(patches), net_input(dim)
    assert a.shape == (81, 3, PATCH, PATCH) and a.dtype == np.float32
    assert np.abs(np.median(a[20:], axis=(0, 2, 3))).max() < 0.05        # the board is zero
    assert np.abs(a - b).mean() < 0.1 * np.abs(a).mean() + 0.02


def test_shipped_classifier_gives_probabilities_and_features():
    clf = shipped_classifier()
    rng = np.random.default_rng(1)
    patches = rng.integers(0, 255, (56, PATCH, PATCH, 3), dtype=np.uint8)
    P = clf.probabilities(patches)
    assert P.shape == (56, len(CLASSES))
    assert np.allclose(P.sum(axis=1), 1) and (P >= 0).all()
    logits, feats = clf.embed(patches)
    assert feats.shape == (56, clf.features)
    # The last layer of the JSON is the ONNX model's last layer.
    assert np.allclose(feats @ clf.W.T + clf.b, logits, atol=1e-3)


def test_room_head_learns_a_room_and_round_trips():
    rng = np.random.default_rng(2)
    clf = shipped_classifier()
    labels = rng.integers(0, 3, 300)
    # Features of a room where the shipped layer reads every cell wrong: each class's
    # cells cluster where the shipped weights put the next class.
    centres = rng.normal(0, 3, (3, clf.features)).clip(0)
    feats = centres[labels] + rng.normal(0, 0.3, (300, clf.features)).clip(0)
    head = RoomHead.learn(feats, labels, np.zeros((3, clf.features)), np.zeros(3))
    assert (head.logits(feats).argmax(axis=1) == labels).mean() > 0.98
    again = RoomHead.from_json(json.loads(json.dumps(head.to_json())), clf.features)
    assert np.allclose(again.W, head.W, atol=1e-5) and np.allclose(again.b, head.b, atol=1e-5)
    with pytest.raises(ValueError, match="not this cell classifier"):
        RoomHead.from_json(head.to_json(), clf.features + 1)
    with pytest.raises(ValueError, match="no black cells"):
        RoomHead.learn(feats, np.minimum(labels, 1), head.W, head.b)


def test_out_of_the_box_a_frame_refits_the_last_layer_from_its_sure_cells():
    """A frame whose black stones look more like the bare board than in the rooms the
    layer was fitted on: the shipped layer reads some as empty, the layer refitted to
    the frame's own sure cells reads them all right. A frame lacking a class refits
    nothing."""
    rng = np.random.default_rng(3)
    clf = copy.copy(shipped_classifier())
    centres = rng.normal(0, 3, (3, clf.features)).clip(0)
    labels = rng.integers(0, 3, 300)
    fitted = RoomHead.learn(centres[labels] + rng.normal(0, 0.3, (300, clf.features)).clip(0), labels,
                            np.zeros((3, clf.features)), np.zeros(3))
    clf.W, clf.b = fitted.W, fitted.b
    frame = centres.copy()
    frame[2] += 0.45 * (centres[0] - centres[2])
    y = np.repeat([0, 1, 2], 27)
    feats = frame[y] + rng.normal(0, 0.6, (81, clf.features)).clip(0)
    P = softmax(fitted.logits(feats))
    assert ((P.argmax(axis=1) == 0) & (y == 2)).sum() >= 3
    head = clf.frame_head(P, feats)
    assert (head.logits(feats).argmax(axis=1) == y).all()
    assert clf.frame_head(P[y != 1], feats[y != 1]) is None


def test_out_of_the_box_probabilities_are_the_frames_own_refit():
    from fenix_tools.sim import SceneParams, render_frame
    from fenix_table.rules import Position
    from fenix_table.vision.cells import CellReader
    start = Position.start("9x9").stacks()
    bgr, truth = render_frame(start, "9x9", SceneParams(), np.random.default_rng(4))
    reader = CellReader(Calibration("9x9", (640, 480), tuple(map(tuple, truth.corners)), oriented=True))
    patches = reader.patches(reader.rectifier(bgr))
    clf = shipped_classifier()
    logits, feats = clf.embed(patches)
    head = clf.frame_head(softmax(logits), feats)
    assert head is not None and not np.allclose(head.W, clf.W)
    assert np.allclose(clf.probabilities(patches), softmax(head.logits(feats)))


def test_a_calibration_with_a_cnn_room_round_trips(tmp_path):
    """A room learned from a start frame carries the CNN's refitted last layer, survives
    the calibration file, and a layer of the wrong shape is one clear error."""
    from fenix_tools.sim import SceneParams, render_frame
    from fenix_table.rules import Position
    from fenix_table.vision.cells import CellReader, calibrate_reader
    start = Position.start("7x8").stacks()
    bgr, truth = render_frame(start, "7x8", SceneParams(), np.random.default_rng(4))
    cal = Calibration("7x8", (640, 480), tuple(map(tuple, truth.corners)), oriented=True)
    fitted = calibrate_reader(bgr, cal, start)
    assert fitted.room["head"]["kind"] == "cnn-head"
    assert CellReader(fitted).calibrated
    path = tmp_path / "cal.json"
    fitted.save(str(path))
    assert Calibration.load(str(path)) == fitted
    room = dict(fitted.room)
    room["head"] = dict(room["head"], W=room["head"]["W"][:2])
    path.write_text(json.dumps({"board": "7x8", "image_size": [640, 480], "corners": cal.corners, "room": room}))
    with pytest.raises(ConfigError, match="bad calibration: .*not this cell classifier"):
        Calibration.load(str(path))


@pytest.mark.parametrize("arch", ["plain", "separable"])
def test_onnx_export_read_by_cv2_dnn_matches_torch(tmp_path, arch):
    """The training tool's export, run through the package's classifier, gives the
    torch model's logits and features."""
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import export, make_net
    torch.manual_seed(0)
    net = make_net(arch).eval()
    model, head = tmp_path / "m.onnx", tmp_path / "m.json"
    export(torch, net, 1.7, str(model), str(head), "test")
    clf = CnnClassifier(str(model), str(head))
    rng = np.random.default_rng(3)
    patches = rng.integers(0, 255, (81, PATCH, PATCH, 3), dtype=np.uint8)
    logits, feats = clf.embed(patches)
    with torch.no_grad():
        t_logits, t_feats = net(torch.from_numpy(net_input(patches)))
    assert np.allclose(logits, t_logits.numpy() / 1.7, atol=1e-4)
    assert np.allclose(feats, t_feats.numpy(), atol=1e-4)
    assert json.loads(head.read_text())["temperature"] == 1.7


def test_an_exported_net_is_read_back_into_the_net_it_was(tmp_path):
    """Fine-tuning starts from the shipped files when no checkpoint is left: the export
    read back (first layer unblocked, temperature taken out) is the exported net."""
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import export, exported_state, make_net
    torch.manual_seed(1)
    net = make_net("plain").eval()
    model, head = tmp_path / "m.onnx", tmp_path / "m.json"
    export(torch, net, 1.7, str(model), str(head), "test")
    back = make_net("plain").eval()
    back.load_state_dict(exported_state(torch, str(model), str(head)))
    for name, value in net.state_dict().items():
        assert torch.allclose(back.state_dict()[name], value, atol=1e-6), name
    x = torch.from_numpy(net_input(np.random.default_rng(1).integers(0, 255, (9, PATCH, PATCH, 3), dtype=np.uint8)))
    with torch.no_grad():
        assert torch.allclose(back(x)[0], net(x)[0], atol=1e-5)


@pytest.mark.parametrize("kernel,padding", [(3, 1), (2, 0), (5, 2), (4, 1)])
def test_a_first_layer_over_pixel_blocks_gives_the_strided_layers_outputs(kernel, padding):
    """The export's first layer reads 2x2 pixel blocks at stride one (net_input with
    blocks); whatever the strided layer's kernel and padding, its outputs are the same."""
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import space_to_depth
    torch.manual_seed(kernel)
    conv = torch.nn.Conv2d(3, 8, kernel, stride=2, padding=padding)
    layer, blocks = space_to_depth(torch, conv)
    patches = np.random.default_rng(kernel).integers(0, 255, (12, PATCH, PATCH, 3), dtype=np.uint8)
    with torch.no_grad():
        want = conv(torch.from_numpy(net_input(patches))).numpy()
        got = layer(torch.from_numpy(net_input(patches, blocks))).numpy()
    assert got.shape == want.shape
    assert np.allclose(got, want, atol=1e-5)


def test_a_separable_net_started_from_a_plain_one_reads_as_it_does_where_its_kernels_allow():
    """separable_state splits the plain net's third layer per input channel into one
    spatial kernel and one weight per output: where those kernels are rank one (here
    made so) the separable net gives the plain net's logits; where they are not, it
    differs (the split is an approximation, not a copy)."""
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import make_net, separable_state
    torch.manual_seed(4)
    plain = make_net("plain").eval()
    patches = np.random.default_rng(4).integers(0, 255, (20, PATCH, PATCH, 3), dtype=np.uint8)
    x = torch.from_numpy(net_input(patches))
    separable = make_net("separable").eval()
    separable.load_state_dict(separable_state(torch, plain.state_dict()))
    with torch.no_grad():
        assert not np.allclose(separable(x)[0].numpy(), plain(x)[0].numpy(), atol=1e-3)
        W = plain.body[4].weight
        out, ins = W.shape[:2]
        W.copy_(torch.randn(out, ins, 1, 1) * torch.randn(1, ins, 3, 3))
        separable.load_state_dict(separable_state(torch, plain.state_dict()))
        assert np.allclose(separable(x)[0].numpy(), plain(x)[0].numpy(), atol=1e-4)


def test_distillation_is_nothing_when_the_net_reads_as_its_teacher_and_grows_as_it_departs():
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import distillation
    teacher = torch.tensor([[4.0, 0.0, -2.0], [0.0, 3.0, 1.0]])
    assert float(distillation(torch, teacher.clone(), teacher)) == pytest.approx(0.0, abs=1e-6)
    near = float(distillation(torch, teacher + torch.tensor([[0.0, 1.0, 0.0]]), teacher))
    far = float(distillation(torch, teacher + torch.tensor([[0.0, 4.0, 0.0]]), teacher))
    assert 0 < near < far


def test_interpolated_weights_run_from_the_start_to_the_trained_net():
    torch = pytest.importorskip("torch")
    from fenix_tools.cnn.train import interpolated, make_net
    torch.manual_seed(0)
    start, trained = make_net("plain").state_dict(), make_net("plain").state_dict()
    for share in (0.0, 0.5, 1.0):
        mixed = interpolated(start, trained, share)
        for k in start:
            assert torch.allclose(mixed[k], start[k] + share * (trained[k] - start[k]), atol=1e-6)
    assert all(torch.equal(v, start[k]) for k, v in interpolated(start, trained, 0.0).items())
    with pytest.raises(ValueError):
        interpolated(start, make_net("separable").state_dict(), 0.5)


def test_interpolating_needs_the_weights_it_starts_from(tmp_path):
    pytest.importorskip("torch")
    from fenix_tools.cnn.train import main
    with pytest.raises(SystemExit) as stop:
        main(["--root", str(tmp_path), "--interpolate", "0.5"])
    assert stop.value.code == 2
