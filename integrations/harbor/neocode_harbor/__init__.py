"""NeoCode as a Harbor installed agent (Terminal-Bench runs agents through Harbor).

``commands`` builds what runs in the task's container and reads what the run left there;
it imports nothing of Harbor, so it is tested on its own. ``agent.NeoCode`` is the class
Harbor loads (``--agent-import-path neocode_harbor.agent:NeoCode``)."""

__all__ = ["commands"]
