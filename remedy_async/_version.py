"""The package's version, written once here (pyproject.toml reads it), so importing the
package never needs importlib.metadata."""

VERSION = "0.1.0"
