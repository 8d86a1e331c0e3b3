"""What people read: the standings' text table and CSV, the score sheet, and
the results page."""
