# "2026年12月1日", "14:30" (see config/formats/__init__.py)
DATE_FORMAT = "Y年n月j日"
SHORT_DATE_FORMAT = "Y年n月j日"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y年n月j日 H:i"
SHORT_DATETIME_FORMAT = "Y年n月j日 H:i"
MONTH_DAY_FORMAT = "n月j日"
YEAR_MONTH_FORMAT = "Y年n月"
