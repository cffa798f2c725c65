class ServiceError(Exception):
    """A request that cannot be carried out; `message` is translated and safe to show the user."""

    def __init__(self, message, *, code: str = "refused"):
        super().__init__(str(message))
        self.message = message
        self.code = code
