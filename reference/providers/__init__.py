"""The official SDKs: the scripted model served behind them, and adapters that drive a real provider."""
