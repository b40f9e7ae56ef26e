"""The network: inputs fetched (fetch.py), robots.txt read and edited (robotsfile.py), and
IndexNow's client (indexnow.py)."""
