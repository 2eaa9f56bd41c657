#!/usr/bin/env bash
# Push the committed tree (HEAD) to a Hugging Face Space as one new commit, binaries through LFS.
#   bash deploy/push_space.sh USER/SPACE        (or a full git URL)
# Needs git-lfs (Debian: apt-get install git-lfs). Git asks for a user name and a password: your
# Hugging Face user name and an access token with write permission.
# Only HEAD's files are sent, never this repository's history: older commits hold the checkpoints
# and screenshots as plain git blobs, which a Space rejects. The Space keeps a history of its own
# (one commit per push); git-lfs is set up in a throwaway repository, not in your git config.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: bash deploy/push_space.sh USER/SPACE}
case $target in
  *://* | /* | ./* | ../*) url=$target ;;
  *) url=https://huggingface.co/spaces/$target ;;
esac
if ! git lfs version >/dev/null 2>&1; then
  echo "error: git-lfs is missing (https://git-lfs.com; Debian: apt-get install git-lfs)" >&2
  exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "note: uncommitted changes are not pushed; the Space gets HEAD ($(git rev-parse --short HEAD))" >&2
fi
rev=$(git rev-parse --short HEAD)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive HEAD | tar -x -C "$work"
cp deploy/space.gitattributes "$work/.gitattributes"
cd "$work"
git init -q -b main
git lfs install --local >/dev/null
# on top of the Space's current commit when it has one, so the push needs no --force
if git fetch -q "$url" main 2>/dev/null; then
  git reset -q --soft FETCH_HEAD
fi
git add -A
if git rev-parse -q --verify HEAD >/dev/null && git diff --cached --quiet HEAD; then
  echo "the Space already has HEAD's files ($rev): nothing to push"
  exit 0
fi
git commit -q -m "Deploy $rev"
git lfs ls-files | sed 's/^/lfs: /'
git push "$url" main
