# Every target sets itself up: the first run creates .venv and installs requirements.txt
# (pip shows its progress: the first install downloads torch and can take minutes).
# torch: on Linux without an NVIDIA GPU (no nvidia-smi, no /proc/driver/nvidia) the CPU build
# from PyTorch's CPU wheel index (about 190 MB), not the plain pin's CUDA build (about 2.7 GB with
# its nvidia-* packages); when that index cannot be reached, the plain pin after all.
#   make venv TORCH=cpu   the CPU build anyway;  make venv TORCH=pin   the plain pin anyway
#   make extras           the optional packages of requirements-extra.txt (Gymnasium, PettingZoo,
#                         SB3, OpenSpiel, JupyterLab), torch's CPU build with them where TORCH=cpu
#   make notebook         the classroom notebook in JupyterLab (installs the extras first)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
EXTRAS_STAMP := $(VENV)/.extras
NVIDIA_GPU := $(shell command -v nvidia-smi >/dev/null 2>&1 || test -e /proc/driver/nvidia && echo yes)
TORCH ?= $(if $(filter Linux,$(shell uname -s)),$(if $(NVIDIA_GPU),pin,cpu),pin)
TORCH_CPU_INDEX := https://download.pytorch.org/whl/cpu
TORCH_PIN := $(shell grep -E '^torch==' requirements.txt)

.PHONY: venv extras notebook play train dqn test test-all bench bench-dqn data compare curves docs exercise check nim clean

# More flags for a target's script, e.g. make train ARGS="--epochs 500000" or
# make compare ARGS="--epochs 20000" (the tests run every target this way, at small sizes).
ARGS ?=

venv: $(STAMP)

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(if $(filter cpu,$(TORCH)),$(PY) -m pip install --timeout 20 --retries 1 "$(TORCH_PIN)" \
		--index-url $(TORCH_CPU_INDEX) || echo "PyTorch's CPU index cannot be reached: the plain pin")
	$(PY) -m pip install -r requirements.txt
	touch $(STAMP)

extras: $(EXTRAS_STAMP)

# No extra index: make venv already installed the pinned torch (the CPU build where TORCH=cpu),
# and the constraint keeps it, so whatever of the extras needs torch (SB3) takes the installed
# one. An index beside PyPI that cannot be reached would make pip retry it for every package.
$(EXTRAS_STAMP): requirements-extra.txt $(STAMP)
	$(PY) -m pip install -r requirements-extra.txt --constraint requirements.txt
	touch $(EXTRAS_STAMP)

# JupyterLab on notebooks/ (it prints the address to open if no browser starts).
notebook: extras
	$(PY) -m jupyter lab notebooks/ $(ARGS)

play: venv
	$(PY) Game.py $(ARGS)

train: venv
	$(PY) MC_Trainer.py $(ARGS)

# The next chapter: a neural Q-function (DQN), X against random, seed 1 (as the docs show), with
# its exact report (how long, on which processor: docs/SPEED.md, How long).
dqn: venv
	$(PY) DQN_Trainer.py --seed 1 $(ARGS)

# The quick suite: every test but those marked slow (its measured time: README.md, Tests;
# python tools/benchmarks/timed.py make test times it again).
test: venv
	$(PY) -m pytest -q -m "not slow" $(ARGS)

# The full suite, the slow tests too (CI runs it; its measured time: README.md, Tests), on two
# workers (pytest-xdist), each running whole modules, the longest first (tests/conftest.py);
# it ends with its ten slowest tests, which docs/SPEED.md quotes.
test-all: venv
	$(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=10 $(ARGS)

# The speed figures of docs/SPEED.md, into Data/bench.txt (its time: README.md, Tests).
bench: venv
	$(PY) tools/bench.py $(ARGS)

# The DQN's seeds 1-10, X against random and self-play, under each level of torch's CPU kernels
# this processor offers (docs/SPEED.md); each run is about 40 s of CPU, 60 runs on AVX-512.
bench-dqn: venv
	$(PY) tools/benchmarks/dqn.py $(ARGS)

# The shipped tables: learned from play (Monte Carlo control), against mixed opponents so that
# they meet strong and weak play alike, and on 4x4 k=4 against the exploiter until proven
# unbeatable (--force: they replace the shipped ones, kept as .bak).
data: venv
	$(PY) MC_Trainer.py --side X --opponent advanced+minimax --epochs 1000000 --seed 1 --out Data/Q_MC_X.pth --force
	$(PY) MC_Trainer.py --side O --opponent random+minimax --epochs 1000000 --seed 1 --out Data/Q_MC_O.pth --force
	$(PY) Adversarial_Trainer.py --board 4x4 --k 4 --side X --seed 1 --out Data/Q_ADV_X_4x4k4.pth --force
	$(PY) Adversarial_Trainer.py --board 4x4 --k 4 --side O --seed 1 --out Data/Q_ADV_O_4x4k4.pth --force

# MC vs SARSA vs Q-learning vs self-play at equal episodes, exact results.
compare: venv
	$(PY) tools/compare.py $(ARGS)

# Learning curves of Q-learning with the lecture's settings, into Data/learning_curve.png (git
# ignores it); make docs draws the README's own figure, docs/learning_curve.png.
curves: venv
	$(PY) Q_Trainer.py --lecture --seed 1 --plot Data/learning_curve.png $(ARGS)

# The figures README.md and docs/ quote, made again by the commands that produce them (its time:
# README.md, Tests; make docs ARGS="--only dqn" for some, ARGS=--list names them). Quotes the
# latest make bench and tools/benchmarks/timed.py runs; a figure whose seconds or dates alone
# differ stays as it is. make docs COURSE_TABLES=FOLDER measures the course's own tables too.
docs: venv
	$(PY) tools/docs_figures.py $(ARGS)

# The students' version of this repository, into exercise/ (FORCE=1 writes over an earlier one).
exercise: venv
	EXERCISE_FORCE_HOW="use make exercise FORCE=1" \
		$(PY) tools/exercise/make.py --out exercise $(if $(FORCE),--force)

# The exercise's self-check (pieces 1-3; python check.py --all for the bonus pieces too).
check: venv
	$(PY) check.py $(ARGS)

# The AI course's Nim: the project's training (nim/better.py, 10,000 self-play games, a progress
# line), the judge's report against perfect play, then a game against you in the terminal.
# The course's own run is `cd nim && python play.py` (its train(10000), then play(ai)).
nim: venv
	$(PY) nim/play.py --better --quiet --judge --play $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis __pycache__ tests/__pycache__
