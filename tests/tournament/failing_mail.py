"""An e-mail backend whose mail server refuses everything (tests of what a failed send leaves behind)."""

import smtplib

from django.core.mail.backends.base import BaseEmailBackend


class FailingBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        raise smtplib.SMTPServerDisconnected("the mail server went away")
