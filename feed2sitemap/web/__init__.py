"""The network: inputs fetched (fetch.py) and cached (cache.py), robots.txt read and edited
(robotsfile.py), and IndexNow's client (indexnow.py)."""
