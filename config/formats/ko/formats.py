# "2026년 12월 1일", "14:30" (see config/formats/__init__.py)
DATE_FORMAT = "Y년 n월 j일"
SHORT_DATE_FORMAT = "Y년 n월 j일"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "Y년 n월 j일 H:i"
SHORT_DATETIME_FORMAT = "Y년 n월 j일 H:i"
MONTH_DAY_FORMAT = "n월 j일"
YEAR_MONTH_FORMAT = "Y년 n월"
