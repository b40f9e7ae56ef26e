"""The values every layer speaks, and the rules they keep; nothing here imports a layer above.

record.py and batch.py (a Record, and batches of them column by column), extensions.py (what
a URL carries besides its fields; the item types are extensions/model.py's), options.py (the
option groups), limits.py (profiles and bounds), scope.py, report.py (what a run counts and
tells), rules.py (a field's values), urls.py (a location's normal form), lastmods.py (columns
of lastmods parsed at once).
"""
