# Every target sets itself up: the first run creates .venv and installs requirements.txt.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv play train test bench data compare exercise clean

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

play: venv
	$(PY) Game.py

train: venv
	$(PY) MC_Trainer.py

test: venv
	$(PY) -m pytest -q

bench: venv
	$(PY) tools/bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis __pycache__ tests/__pycache__
