"""Runs past one process: the partition step (partition.py), the index step (indexing.py, also
the ``index`` command) and Dask's rows (rows.py); ``feed2sitemap.dask`` is the Dask face."""
