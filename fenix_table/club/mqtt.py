"""The MQTT connection both ends use: broker URLs, credentials, TLS, reconnecting.

paho-mqtt is the optional extra ``fenix-table[club]``; it is imported here, only when a
broadcast or a viewer starts.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Callable, Optional, Tuple
from urllib.parse import urlsplit

from ..errors import ConfigError, FenixError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in. ``url``: ``mqtt://host[:port]`` or
    ``mqtts://host[:port]`` (TLS; the club's CA certificate in ``ca_file``, else the
    system's)."""

    url: str = "mqtt://localhost:1883"
    username: Optional[str] = None
    password: Optional[str] = None
    ca_file: Optional[str] = None

    @property
    def address(self) -> Tuple[str, int, bool]:
        """``(host, port, tls)``; ConfigError names a bad URL."""
        return parse_url(self.url)


def parse_url(url: str) -> Tuple[str, int, bool]:
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/"):
        raise ConfigError(f"broker {url!r}: expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"broker {url!r}: the port is not a number 1-65535") from None
    tls = parts.scheme == "mqtts"
    return parts.hostname, port or (8883 if tls else 1883), tls


def read_password(path: str) -> str:
    """The first line of a password file (kept out of the configuration file itself)."""
    from ..files import read_text
    lines = read_text(path, 4096, "password file", ConfigError).splitlines()
    if not lines or not lines[0].strip():
        raise ConfigError(f"password file {path}: empty")
    return lines[0].strip()


def paho():
    try:
        import paho.mqtt.client as client
    except ImportError:
        raise FenixError("the club broadcast needs paho-mqtt: pip install "
                         "'fenix-table[club]'") from None
    return client


def make_client(broker: Broker, client_id: str, *, on_connect: Callable[[bool, str], None],
                on_disconnect: Callable[[str], None], on_message=None,
                on_published: Optional[Callable[[int], None]] = None,
                will: Optional[Tuple[str, bytes]] = None):
    """A paho client (:func:`start` connects it) that keeps reconnecting (0.2 s, doubling up to 2 s).
    ``on_connect(ok, reason)`` and ``on_disconnect(reason)`` are called from its thread;
    ``on_message(topic, payload)`` too, and ``on_published(mid)`` when the broker has
    acknowledged a QoS 1 message. Unacknowledged QoS 1 messages are sent again once the
    broker is back; paho does not keep them in order with messages published while it
    reconnects, so a caller that needs order sends one at a time (see broadcast.py)."""
    mqtt = paho()
    host, port, tls = broker.address
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv311, clean_session=True)
    client.max_queued_messages_set(0)      # no limit: nothing is dropped while away
    client.max_inflight_messages_set(100)
    client.reconnect_delay_set(min_delay=0.2, max_delay=2)
    if broker.username:
        client.username_pw_set(broker.username, broker.password)
    if tls:
        if broker.ca_file and not os.path.isfile(broker.ca_file):
            raise ConfigError(f"{broker.ca_file}: no such CA certificate file")
        client.tls_set(ca_certs=broker.ca_file or None)
    if will is not None:
        client.will_set(will[0], will[1], qos=1, retain=True)

    def connected(client_, userdata, flags, reason, properties=None):
        on_connect(not reason.is_failure, str(reason))

    def disconnected(client_, userdata, flags, reason, properties=None):
        on_disconnect(str(reason))

    client.on_connect = connected
    client.on_disconnect = disconnected
    # Not reached at all (no broker there, or its TLS certificate is not trusted).
    client.on_connect_fail = lambda client_, userdata: on_connect(
        False, "no connection (nothing answers there, or its TLS certificate is not trusted)")
    if on_published is not None:
        client.on_publish = lambda client_, userdata, mid, reason, properties=None: \
            on_published(mid)
    if on_message is not None:
        client.on_message = lambda client_, userdata, msg: on_message(msg.topic, msg.payload)
    return client


def start(client, broker: Broker) -> None:
    """Connect ``client`` (from :func:`make_client`) in its own thread, retrying until
    the broker answers."""
    host, port, _ = broker.address
    try:
        client.connect_async(host, port, keepalive=15)
    except (OSError, ValueError) as error:
        raise ConfigError(f"broker {broker.url}: {error}") from None
    client.loop_start()
