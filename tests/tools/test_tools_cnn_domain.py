"""The cell CNN's domain-generalisation augmentations: they change the looks of a batch,
never its shape or its labels, and a seed gives the same batch."""
import copy

import pytest

from fenix_table.vision.classifier import PATCH

torch = pytest.importorskip("torch")


def _batch(n=32):
    g = torch.Generator().manual_seed(5)
    return torch.randn(n, 3, PATCH, PATCH, generator=g), torch.randint(0, 3, (n,), generator=g)


def _twice(f):
    torch.manual_seed(3)
    a = f()
    torch.manual_seed(3)
    return a, f()


@pytest.mark.parametrize("name", ["rand_conv", "tone_curves", "shifted"])
def test_an_augmentation_keeps_the_batch_shape_changes_its_looks_and_repeats_for_a_seed(name):
    from fenix_tools.cnn import train
    x, _ = _batch()
    amount = {"rand_conv": 1.0, "tone_curves": 1.0, "shifted": 2}[name]
    f = getattr(train, name)
    a, b = _twice(lambda: f(torch, x, amount))
    assert a.shape == x.shape and a.dtype == x.dtype
    assert torch.isfinite(a).all()
    assert torch.equal(a, b)
    assert not torch.equal(a, x)
    off = {"rand_conv": 0.0, "tone_curves": 0.0, "shifted": 0}[name]
    assert torch.equal(f(torch, x, off), x)


def test_random_convolution_keeps_each_channels_spread():
    from fenix_tools.cnn.train import rand_conv
    x, _ = _batch(256)
    for seed in range(5):
        torch.manual_seed(seed)
        out = rand_conv(torch, x, 1.0)
        ratio = out.std(dim=(0, 2, 3)) / x.std(dim=(0, 2, 3))
        # A mix of the input and a filtered copy at its spread: never louder, never gone.
        assert (ratio <= 1.0 + 1e-4).all() and (ratio > 0.5).all()


def test_tone_curves_keep_the_order_of_lightness_in_a_patch():
    from fenix_tools.cnn.train import tone_curves
    ramp = torch.linspace(-2, 2, PATCH)[None, None, None, :].expand(4, 3, PATCH, PATCH).contiguous()
    torch.manual_seed(0)
    out = tone_curves(torch, ramp, 1.0)
    # Monotone per channel: a darker stone stays darker than a lighter one.
    assert (out[..., 1:] >= out[..., :-1]).all()


def test_a_shift_moves_a_patch_and_repeats_its_edge():
    from fenix_tools.cnn.train import shifted
    x = torch.zeros(50, 3, PATCH, PATCH)
    x[:, :, PATCH // 2, PATCH // 2] = 1.0
    torch.manual_seed(1)
    out = shifted(torch, x, 2)
    where = [tuple(torch.nonzero(o[0] == 1.0)[0].tolist()) for o in out]
    offsets = {(r - PATCH // 2, c - PATCH // 2) for r, c in where}
    assert all(abs(dr) <= 2 and abs(dc) <= 2 for dr, dc in offsets)
    assert len(offsets) > 5
    assert torch.allclose(out.sum(dim=(2, 3)), torch.ones(50, 3))


def test_mixstyle_mixes_only_patches_of_one_class_and_only_in_training():
    from fenix_tools.cnn.train import MixStyle, make_net
    torch.manual_seed(0)
    net = make_net()
    mix = MixStyle(torch, 1.0).attach(net)
    x, y = _batch(12)
    y = torch.tensor([0] * 11 + [2])
    net.eval()
    plain = net(x)[0].detach()
    net.train()
    mix.batch(y)
    assert mix.on
    mixed = net(x)[0].detach()
    # The one black stone has no partner but itself: its features are its own.
    assert torch.allclose(mixed[11], plain[11], atol=1e-5)
    assert not torch.allclose(mixed[:11], plain[:11], atol=1e-3)
    net.eval()
    assert torch.equal(net(x)[0].detach(), plain)
    # Unhooked, the net exports (it is copied whole) and reads as if never hooked.
    mix.detach()
    net.train()
    assert torch.equal(copy.deepcopy(net)(x)[0].detach(), net(x)[0].detach())
    assert torch.allclose(net(x)[0].detach(), plain)
    # Off (share 0): never mixed.
    off = MixStyle(torch, 0.0)
    off.batch(y)
    assert not off.on


def test_the_domain_options_name_themselves_in_the_tag_and_the_note_only_when_on():
    from argparse import Namespace
    from fenix_tools.cnn.train import domain_options, domain_tag
    off = Namespace(randconv=0.0, tone=0.0, shift=0, mixstyle=0.0, smooth=0.0, weight_decay=1e-5)
    assert domain_tag(off) == "" and domain_options(off) == ""
    on = Namespace(randconv=0.5, tone=0.0, shift=2, mixstyle=0.0, smooth=0.05, weight_decay=1e-4)
    assert domain_tag(on) == "-rc0.5-sh2-ls0.05-wd0.0001"
    assert domain_options(on) == "--randconv 0.5 --shift 2 --smooth 0.05 --weight-decay 0.0001 "
