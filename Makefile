PYTHON ?= python3

.PHONY: install test test-fast bench sanitize clean

install:
	$(PYTHON) -m pip install -e ".[test]"

test:
	$(PYTHON) -m pytest -q

test-fast:
	$(PYTHON) -m pytest -q -x -m "not slow"

clean:
	rm -rf build dist *.egg-info .pytest_cache
