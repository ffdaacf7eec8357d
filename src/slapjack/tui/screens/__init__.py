"""The app's screens: start, table, end, and the dialogs."""
