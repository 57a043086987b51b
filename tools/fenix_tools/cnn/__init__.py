"""The learned cell reader's tooling: cell patches from generated and physically based
frames (:mod:`.data`), the CNN's training, calibration and ONNX export (:mod:`.train`).

    PYTHONPATH=tools python -m fenix_tools.cnn.data --help
    PYTHONPATH=tools python -m fenix_tools.cnn.train --help

Needs the ``train`` extra (PyTorch). Data and checkpoints go under ``/work/data/reader``
(``--root``); only the exported model is written into the package.
"""
