"""One run, composed: the inputs read (reading.py, indexes followed by follow.py), the steps
(pipeline/), the output written (writing.py) and published (publish.py: robots.txt, IndexNow);
converting.py is ``convert``, the command's whole job."""
