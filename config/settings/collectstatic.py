"""Only for `collectstatic` while building the image: production storage, no secrets needed."""

from .base import *  # noqa: F403

SECRET_KEY = "collectstatic-only"  # noqa: S105
DEBUG = False
