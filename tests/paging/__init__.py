"""Unit tests of the paging core (remedy_async._paging), one file per module."""
