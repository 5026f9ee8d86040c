"""A model file's container (bots/model_container.py): named, versioned sections written once, the
files written before sections existed read and written byte for byte, damaged or newer files refused
by name."""
from __future__ import annotations

import json
import struct

import numpy as np
import pytest

from bots.model_container import MAGIC, VERSION, Section, pack, read_header, unpack
from bots.value_file import model_bytes, models_folder, read_model, shipped_models
from learn.model import ValueNet
from learn.ntuple import NTupleModel


def _net(players: int = 2) -> ValueNet:
    rng = np.random.default_rng(3)
    sizes = [7, 4, 1]
    weights = [rng.standard_normal((sizes[i + 1], sizes[i])).astype(np.float32) for i in range(2)]
    biases = [rng.standard_normal(s).astype(np.float32) for s in sizes[1:]]
    return ValueNet(rng.standard_normal(7).astype(np.float32), np.ones(7, np.float32), weights, biases,
                    players, {"seed": 3, "note": "a test"})


def _old_network_bytes(net: ValueNet) -> bytes:
    """The network's file as learn/model.py wrote it by hand before the container (its code, kept)."""
    arrays = {"mean": net.mean, "scale": net.scale}
    for i, (w, b) in enumerate(zip(net.weights, net.biases)):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    header = {"format": "azul-value/1", "players": net.players, "inputs": int(net.mean.shape[0]),
              "layers": [int(w.shape[0]) for w in net.weights], "hidden": "relu", "output": "tanh",
              "arrays": list(arrays), "shapes": [list(a.shape) for a in arrays.values()], "meta": net.meta}
    text = json.dumps(header, sort_keys=True).encode()
    body = b"".join(np.ascontiguousarray(a, "<f4").tobytes() for a in arrays.values())
    return MAGIC + struct.pack("<I", len(text)) + text + body


def _old_ntuple_bytes(model: NTupleModel) -> bytes:
    """The n-tuple file as learn/ntuple.py wrote it by hand before the container (its code, kept)."""
    from bots.ntuple import FORMAT, TUPLES
    header = {"format": FORMAT, "players": model.players, "arrays": list(TUPLES),
              "shapes": [list(s) for s in TUPLES.values()], "meta": model.meta}
    text = json.dumps(header, sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(text)) + text + np.asarray(model.weights, "<f4").tobytes()


def _with_header(data: bytes, change) -> bytes:
    """``data`` with its header changed by ``change(header)`` (its length written anew)."""
    (size,) = struct.unpack("<I", data[8:12])
    header = json.loads(data[12:12 + size])
    change(header)
    text = json.dumps(header, sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(text)) + text + data[12 + size:]


def test_a_value_only_model_has_the_bytes_it_had_before_the_container():
    net = _net()
    assert net.to_bytes() == _old_network_bytes(net)
    tables = NTupleModel(np.random.default_rng(4).standard_normal(NTupleModel.zeros(3).weights.size)
                         .astype(np.float32), 3, {"epochs": 2})
    assert tables.to_bytes() == _old_ntuple_bytes(tables)
    assert "container" not in read_header(net.to_bytes()) and "sections" not in read_header(tables.to_bytes())


@pytest.mark.parametrize("name", shipped_models())
def test_every_shipped_model_loads_and_writes_back_to_its_own_bytes(name):
    data = (models_folder() / f"{name}.azv").read_bytes()
    header, arrays = read_model(model_bytes(name), name)
    cls = ValueNet if header["format"] == "azul-value/1" else NTupleModel
    container = unpack(data, name)
    assert cls.from_bytes(data, name).to_bytes() == pack(container.value)  # the value section's own bytes
    assert list(container.value.arrays) == header["arrays"]
    assert pack(container.value, container.sections) == data
    if not container.sections:  # a value-only file: the bytes every model was written with before sections
        assert "container" not in read_header(data)


def test_sections_round_trip_beside_the_value_one_which_every_reader_still_reads():
    net = _net()
    value = unpack(net.to_bytes()).value
    calibration = Section({"format": "azul-calibration/1", "bins": 3},
                          {"edges": np.array([-1, 0, 1], np.float32), "rates": np.eye(3, dtype=np.float32)})
    policy = Section({"format": "azul-policy/1"}, {"logits": np.arange(6, dtype=np.float32).reshape(2, 3)})
    data = pack(value, {"policy": policy, "calibration": calibration})
    header = read_header(data, "m.azv")
    assert header["container"] == VERSION and list(header["sections"]) == ["calibration", "policy"]
    back = unpack(data, "m.azv")
    assert back.value.header == value.header
    assert set(back.sections) == {"calibration", "policy"}
    for name, section in (("calibration", calibration), ("policy", policy)):
        assert back.sections[name].header == section.header
        assert list(back.sections[name].arrays) == list(section.arrays)
        for key, array in section.arrays.items():
            np.testing.assert_array_equal(back.sections[name].arrays[key], array)
    assert pack(back.value, back.sections) == data
    # the value section's readers go on reading it as before: the network and its predictions
    again = ValueNet.from_bytes(data, "m.azv")
    x = np.random.default_rng(0).standard_normal((5, 7)).astype(np.float32)
    np.testing.assert_array_equal(again.predict(x), net.predict(x))


def test_a_container_newer_than_this_version_is_refused_by_name():
    data = pack(unpack(_net().to_bytes()).value, {"policy": Section({"format": "azul-policy/1"}, {})})
    newer = data.replace(f'"container": {VERSION}'.encode(), f'"container": {VERSION + 1}'.encode())
    assert newer != data
    with pytest.raises(ValueError, match=rf"^future\.azv: container version {VERSION + 1}, this version reads "
                                         rf"1 to {VERSION} \(a newer azul-league wrote it"):
        read_model(newer, "future.azv")


def test_a_section_format_newer_than_this_version_is_refused_by_name():
    data = _net().to_bytes().replace(b'"format": "azul-value/1"', b'"format": "azul-value/2"')
    with pytest.raises(ValueError, match=r"^next\.azv: format 'azul-value/2', this version reads azul-value/1 "
                                         r"and azul-ntuple/1$"):
        read_model(data, "next.azv")


def test_truncated_damaged_and_foreign_files_are_refused_naming_the_file():
    data = pack(unpack(_net().to_bytes()).value, {"policy": Section({"format": "azul-policy/1"},
                                                                   {"logits": np.ones(4, np.float32)})})
    with pytest.raises(ValueError, match=r"^cut\.azv: truncated \(array logits runs past the file's end\)$"):
        unpack(data[:-3], "cut.azv")
    with pytest.raises(ValueError, match=r"^cut\.azv: truncated \(array b1 runs past the file's end\)$"):
        read_model(_net().to_bytes()[:-2], "cut.azv")
    with pytest.raises(ValueError, match=r"^long\.azv: 4 bytes after the last array$"):
        read_model(data + bytes(4), "long.azv")
    with pytest.raises(ValueError, match=r"^other\.bin: not a value network file"):
        unpack(b"PK\x03\x04" + bytes(20), "other.bin")
    broken = _with_header(data, lambda h: h["sections"]["policy"].pop("arrays"))
    with pytest.raises(ValueError, match=r"^bad\.azv: a damaged header \(KeyError: 'arrays'\)$"):
        unpack(broken, "bad.azv")


def test_pack_refuses_a_section_that_would_not_read_back():
    value = unpack(_net().to_bytes()).value
    with pytest.raises(ValueError, match="cannot be named 'value'"):
        pack(value, {"value": Section({"format": "azul-value/1"}, {})})
    with pytest.raises(ValueError, match="cannot be named 'Policy!'"):
        pack(value, {"Policy!": Section({"format": "azul-policy/1"}, {})})
    with pytest.raises(ValueError, match="section 'value''s header sets arrays, which the container writes"):
        pack(Section({**value.header, "arrays": []}, value.arrays))
