"""Generated modules (make generate); they import nothing of t2gen."""
