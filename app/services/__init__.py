"""Services: the operations that the CLI and the GUI both call. No Qt here."""
