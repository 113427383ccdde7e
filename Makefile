# The two commands a new user needs: `make demo` and `make test`. Both install what they need.
# `make package` builds the Debian package; `make package-test` and `make test-trixie` need root.
SWIFT ?= swift
# Where SwiftPM builds: a root of another Debian release builds into its own folder (test-trixie).
SCRATCH ?= .build
# The Debian release `make package` builds for: the host's, or trixie/bookworm in a debootstrap root.
RELEASE ?= $(shell . /etc/os-release && echo $$VERSION_CODENAME)

.PHONY: deps demo test test-corpus build release bench bench-trixie clean package package-test test-trixie test-slurm

deps:
	@./scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Runs pipelines/quickstart.json over samples/ into out/quickstart, with a JSON report.
demo: release
	rm -rf out/quickstart
	.build/release/mediabatch run pipelines/quickstart.json --report out/quickstart-report.json
	@echo "Outputs in out/quickstart, report in out/quickstart-report.json"

# The schema and ThumbHash tests compare with PyPI packages: their venv is made first, so a network failure shows here.
# The test classes run one more at a time than there are CPUs (scripts/run-tests.py), which prints the slowest tests and the time.
test: deps
	./scripts/test-python.sh >/dev/null
	$(SWIFT) build --build-tests --scratch-path $(SCRATCH)
	./scripts/run-tests.py --scratch-path $(SCRATCH)

# The suite with the checks over the shared corpus of real-world media (../shared/corpus, or MEDIABATCH_CORPUS) too.
test-corpus:
	MEDIABATCH_CORPUS=$${MEDIABATCH_CORPUS:-$(abspath ../shared/corpus)} $(MAKE) test

# The whole suite on Debian 13 (trixie) from a Debian 12 machine: in a debootstrap root with trixie's own
# build packages and this machine's toolchain, building into .build/trixie so that .build stays bookworm's.
test-trixie:
	./scripts/in-debian-root.sh trixie make test SCRATCH=.build/trixie

# deploy/slurm's array and merge on a one-node Slurm cluster started on this machine, against a single-process
# run (needs root: installs slurmctld, slurmd, munge). Builds the release binary unless MEDIABATCH=path is given.
test-slurm: deps
	deploy/slurm/test-cluster.sh

# dist/mediabatch_VERSION_amd64.deb for $(RELEASE); Depends read from the binary built on it.
package:
	./scripts/package.sh $(RELEASE)

# Both releases' packages, each installed with apt into a clean root of its release and run there.
package-test:
	./scripts/package-test.sh bookworm trixie

bench: release
	bench/run.sh

# bench/run.sh on Debian 13 (libvips 8.16, libheif 1.23, FFmpeg 7.1); SETS and BEST_OF as for bench/run.sh.
bench-trixie:
	./scripts/in-debian-root.sh trixie env SCRATCH=.build/trixie SETS="$(SETS)" BEST_OF="$(BEST_OF)" bench/run.sh

# --one-file-system: never follow a bind mount a stopped root test left in .build/debian.
clean:
	rm -rf --one-file-system .build out dist
