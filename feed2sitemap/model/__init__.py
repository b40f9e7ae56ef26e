"""The values every layer speaks and the rules they keep; nothing here imports a layer above."""
