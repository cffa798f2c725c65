from django.utils import timezone


class ResetTimezoneMiddleware:
    """Each request starts in the site's time zone; views switch to their festival's zone.

    Without this, a zone activated by one request would stay active for the next one on the same worker.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
