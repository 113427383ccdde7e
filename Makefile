# The two commands a new user needs: `make demo` and `make test`. Both install what they need.
SWIFT ?= swift

.PHONY: deps demo test build release bench clean

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

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing

bench: release
	bench/run.sh

clean:
	rm -rf .build out
