"""One module per `leakres` subcommand."""
