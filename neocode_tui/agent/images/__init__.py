"""Images for the model: recognised by their first bytes, decoded and scaled."""

from typing import TYPE_CHECKING

from neocode_tui.deferred import face

if TYPE_CHECKING:
    from neocode_tui.agent.images.decode import (
        MAX_BYTES,
        MAX_SOURCE_BYTES,
        TEXT_ONLY,
        ImageError,
        describe,
        open_image,
        prepare,
        read_image,
        read_pasted,
        without_images,
    )

__all__ = [
    "ImageError",
    "MAX_BYTES",
    "MAX_SOURCE_BYTES",
    "TEXT_ONLY",
    "describe",
    "open_image",
    "prepare",
    "read_image",
    "read_pasted",
    "without_images",
]

if not TYPE_CHECKING:
    __getattr__ = face(__name__, {
        "decode": (
            "ImageError",
            "MAX_BYTES",
            "MAX_SOURCE_BYTES",
            "TEXT_ONLY",
            "describe",
            "open_image",
            "prepare",
            "read_image",
            "read_pasted",
            "without_images",
        ),
    })
