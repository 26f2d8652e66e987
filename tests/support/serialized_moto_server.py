"""moto's server, answering one request at a time: the tests' DynamoDB and S3 peer.

moto_server runs each request on its own thread with nothing isolating them:
concurrent TransactWriteItems interleave, racing ADDs to one item are lost,
and a failed transaction restores a copy of the table taken when it began,
undoing what others committed meanwhile. DynamoDB is linearizable per item
and per transaction, so a server that handles one request at a time is a
faithful peer for the concurrency tests, and a stricter one for the rest.

This is moto_server's own setup (the same app, request handler and threaded
werkzeug server, so connections are accepted and read as before) with one
lock held around the whole request: the app's call and the reading of its
response body, which moto may produce lazily.

After each request it also forgets the DynamoDB model instances that moto
tracks for its dashboard (/moto-api/data.json, which the tests do not use).
Every TransactWriteItems deep-copies each table it touches, once per
action, and each copied item stays on that list for ever: a stress run
grew the server past 20 GB until the kernel killed it.

Usage: serialized_moto_server.py [-H host] -p port
"""

import argparse
import threading

from moto.core.model_instances import model_data
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import run_simple


class Serialized:
    """WSGI middleware that runs the app for one request at a time, and
    untracks the DynamoDB model instances that request made."""

    def __init__(self, app):
        self._app = app
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        with self._lock:
            body = self._app(environ, start_response)
            try:
                return list(body)
            finally:
                if hasattr(body, "close"):
                    body.close()
                for model in model_data["dynamodb"].values():
                    model.instances_tracked.clear()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-H", "--host", default="127.0.0.1", help="address to bind")
    parser.add_argument("-p", "--port", type=int, required=True, help="port to bind")
    args = parser.parse_args()
    run_simple(
        args.host,
        args.port,
        Serialized(DomainDispatcherApplication(create_backend_app)),
        threaded=True,
        request_handler=MotoRequestHandler,
    )


if __name__ == "__main__":
    main()
