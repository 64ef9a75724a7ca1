"""Optional integrations with agent frameworks: each module needs its extra and imports its
framework at the top; the core never imports one (the eval harness loads ``langchain_trim`` only
to run that baseline, when langchain-core is installed)."""
