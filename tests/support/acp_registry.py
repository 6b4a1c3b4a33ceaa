"""The ACP registry's entry format (an ``agent.json``), as a pydantic model.

The registry publishes its JSON Schema (``agent.schema.json``) in its repository only, on
no package index, so it is not vendored here: this model is written from the registry's
FORMAT.md and the schema's field descriptions, field by field (required: id, name,
version, description, distribution; distribution: binary, npx or uvx, nothing else)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Platform = Literal["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64",
                   "windows-aarch64", "windows-x86_64"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class BinaryTarget(_Strict):
    archive: str = Field(pattern=r"^https?://")
    cmd: str
    args: list[str] = []
    env: dict[str, str] = {}


class PackageDistribution(_Strict):
    package: str = Field(min_length=1)
    args: list[str] = []
    env: dict[str, str] = {}


class Distribution(_Strict):
    binary: dict[Platform, BinaryTarget] | None = Field(None, min_length=1)
    npx: PackageDistribution | None = None
    uvx: PackageDistribution | None = None

    @model_validator(mode="after")
    def _one_at_least(self) -> Distribution:
        if self.binary is None and self.npx is None and self.uvx is None:
            raise ValueError("a distribution needs binary, npx or uvx")
        return self


class AgentEntry(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)  # the schema allows other fields

    id: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    name: str = Field(min_length=1)
    version: str = Field(pattern=r"^[0-9]+\.[0-9]+\.[0-9]+")
    description: str = Field(min_length=1)
    repository: str | None = Field(None, pattern=r"^https?://")
    authors: list[str] = []
    license: str | None = None
    icon: str | None = None
    distribution: Distribution
