"""The table as a device: status LEDs, buzzer and buttons (gpiozero).

``Lights.from_config(config)`` gives the table's lights (a quiet stand-in without GPIO);
``lights.handle(event)`` for every referee event; ``lights.close()`` at exit. Patterns are
decided by the GPIO-free :class:`LightsModel`.
"""
from .lights import Lights
from .patterns import OUTPUTS, LightsModel

__all__ = ["Lights", "LightsModel", "OUTPUTS"]
