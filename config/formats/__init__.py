"""The app's one set of date and time formats per language (settings.FORMAT_MODULE_PATH).

Templates and code use only the named formats (DATE_FORMAT, SHORT_DATE_FORMAT, TIME_FORMAT, DATETIME_FORMAT,
SHORT_DATETIME_FORMAT), shown in the festival's time zone (the views activate it). A tournament hall reads a
24-hour clock in every language. What is not set here falls back to Django's own formats for the language.
"""
