"""The club's records: the results database, people and the name fixes kept
beside the records, the standings and the ratings."""
