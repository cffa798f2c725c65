"""A real SMTP server (aiosmtpd) on loopback for test_guardian_smtp, run as its own process:
`python -I smtp_inbox.py DIRECTORY PORT`, until terminated.

Its own process because aiosmtpd imports `from public import public` (the `atpublic` package), which the
project's own `public` app would shadow in the test process, whose sys.path starts at the project root.
Run isolated (-I), the script's sys.path holds neither the project nor this folder.

Each accepted message becomes DIRECTORY/NNNN.eml: an `X-Envelope-To` header (the envelope's recipients)
before the bytes as received. While DIRECTORY/refuse exists, every message is answered with a 550.
"""

import os
import signal
import sys
from pathlib import Path

from aiosmtpd.controller import Controller


class Handler:
    def __init__(self, directory: Path):
        self.directory = directory
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        if (self.directory / "refuse").exists():
            return "550 mailbox unavailable"
        self.count += 1
        path = self.directory / f"{self.count:04d}.eml"
        header = f"X-Envelope-To: {', '.join(envelope.rcpt_tos)}\r\n".encode()
        # On disk before the 250, so it is there when the sender's send returns; renamed into place so a
        # reader never sees half a file.
        path.with_suffix(".part").write_bytes(header + envelope.original_content)
        os.replace(path.with_suffix(".part"), path)
        return "250 OK"


def main(directory: str, port: str) -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    controller = Controller(Handler(Path(directory)), hostname="127.0.0.1", port=int(port))
    controller.start()
    try:
        while True:
            signal.pause()
    finally:
        controller.stop()


if __name__ == "__main__":
    main(*sys.argv[1:])
