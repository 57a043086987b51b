"""A club of tables: every table's live game on an MQTT broker, watched on a web page.

* :class:`~.broadcast.BroadcastSink`: the table's output that publishes its game
  (switched on by the ``[club]`` section of the configuration, :func:`broadcast_from_config`);
* :mod:`.schema`: topics, messages and the checks a viewer applies to what it receives;
* :mod:`.viewer` and :mod:`.web`: ``fenix-table club serve``, the read-only viewer;
* :mod:`.archive`: a broadcast game, or a whole round, as FGN;
* :mod:`.simulate`: ``fenix-table club simulate``, tables playing generated games.

paho-mqtt (the ``club`` extra) is imported only when a broadcast or a viewer starts.
"""
from __future__ import annotations

from typing import Dict, Optional

from ..errors import ConfigError


def broadcast_from_config(config, tags: Optional[Dict[str, str]] = None):
    """The table's broadcast sink when ``[club] enabled`` is true, else None. The table
    logs in as its table name when a password file is set. ConfigError names a bad key."""
    section = config.club if config is not None else None
    if section is None or not section.enabled:
        return None
    from . import schema
    from .broadcast import BroadcastSink
    from .mqtt import Broker, parse_url, read_password

    for key in ("club", "table"):
        try:
            schema.check_name(key, getattr(section, key))
        except ValueError as error:
            raise ConfigError(f"club.{key}: {error}") from None
    try:
        parse_url(section.broker)
    except ConfigError as error:
        raise ConfigError(f"club.broker: {error}") from None
    password = None
    if section.password_file:
        try:
            password = read_password(section.password_file)
        except (ConfigError, OSError) as error:
            raise ConfigError(f"club.password_file: {error}") from None
    broker = Broker(section.broker, username=section.table if password is not None else None,
                    password=password, ca_file=section.ca_file or None)
    return BroadcastSink(broker, section.club, section.table, tags=tags)
