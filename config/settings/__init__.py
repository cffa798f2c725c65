"""Settings: `development` (manage.py default), `test` (pytest), `production` (gunicorn, docker)."""
