"""The Django project: settings, the root URLconf, WSGI and ASGI entry points. The apps (`tournament`,
`scoring`) never import it."""
