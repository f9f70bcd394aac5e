"""The base layer: errors, messages, argument checks, Beamer's direction rule and the level records. Imports nothing else of the package."""
