"""The `ckviz` subcommands: each reads its flags, opens what it needs and calls the layers
below (the app, the headless matrix, hunt, stress, report); nothing below imports this."""
