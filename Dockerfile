FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml ./
COPY rules ./rules
COPY tournament ./tournament
COPY scoring ./scoring
COPY public ./public
COPY config ./config
RUN pip install .
COPY . .
# collectstatic needs settings but no secrets of the real deployment. Every replica carries the same hashed,
# pre-compressed (.gz and .br) files, which whitenoise serves: no shared volume for static files.
RUN python manage.py collectstatic --noinput --settings=config.settings.collectstatic
RUN useradd --system --uid 1000 app && chown -R app /app
USER app
EXPOSE 8000
# No migration here: with several replicas they would race; docker-compose.yml runs `migrate` once first.
# exec: gunicorn is PID 1 and gets the stop signal, so scaling down finishes the requests under way.
CMD ["sh", "-c", "exec gunicorn config.wsgi:application --bind 0.0.0.0:8000 --workers ${GUNICORN_WORKERS:-3} --timeout 90 --graceful-timeout 30 --access-logfile -"]
