"""The organiser's import and export of a festival's registrations, as CSV or XLSX files.

Read it in the order a file travels:

- `layout`: what a registrations file looks like, the same both ways (formats, columns, labels, the guard
  against spreadsheet formulas), so an exported file can be imported again.
- `limits`: what one file may hold (bytes, rows, cells, characters), and the error that refuses a file.
- `reading`: the file's bytes to plain rows of text (encodings, header names), counted against `limits` row by
  row; `workbook` reads an XLSX one row at a time after checking its zip and XML. No database.
- `pending`: the rows of an upload waiting for the organiser's confirmation, in the database under a random
  key that only the sender's session holds; bounded and expiring.
- `validation`: those rows checked against the festival as it is now (fields, events, duplicates, R9 time
  clashes), and the fingerprint of the valid rows the organiser saw in the preview. Reads only.
- `importing`: `import_registrations` re-checks every row under the festival's event locks and registers them
  through `services.registration.register` — the same rules as the public form (R9: capacity → waiting list,
  no two overlapping events, no duplicate) — in ONE transaction: every (remaining valid) row or none.
- `exporting`: a festival's registrations as a file (through tablib), its name and content type.

Callers import from the module that holds what they use; this package re-exports nothing.
"""
