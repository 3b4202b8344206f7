/*
 * catalog_ja.c - everything the bot says, in Japanese, in the terms of the
 * original rule documents (切り札, 宣言, トリック, 親, ...).  Placeholders
 * are the same as in catalog_en.c (a test checks them); command names,
 * card codes and option values stay in ASCII, since users type them.
 */
#include "i18n.h"

const char *const catalog_ja[MSG_COUNT] = {
	[MSG_GAME_WIZARD] = "ウィザード",
	[MSG_GAME_BIRDHEAD] = "BirdHead",
	[MSG_GAME_STICHELN] = "針",
	[MSG_LOBBY_IDLE_CLOSED] = "{1}分間ゲームが始まらなかったので、"
	    "卓を閉じます。",
	[MSG_CARDS_LEFT] = "残り{1}枚",
	[MSG_SHEET_ROUND] = "回",
	[MSG_SHEET_TOTAL] = "合計",
	[MSG_TASK_TRUMP] = "切り札を決める番",
	[MSG_TASK_BID] = "宣言する番",
	[MSG_TASK_SELECT] = "マイナスカードを選ぶ番",
	[MSG_TASK_PLAY] = "カードを出す番",
	[MSG_HAND_HEADER] = "ラウンド{1}、あなたの手札:",
	[MSG_HAND_CLAIRVOYANT] = "千里眼: 自分の手札は見えません。"
	    "他のプレイヤーの手札:",
	[MSG_HAND_EMPTY] = "（カードなし）",
	[MSG_TRUMP_WORD] = "切り札",
	[MSG_ROUND_START] = "ラウンド {1}/{2}",
	[MSG_ROUND_ONLY] = "ラウンド {1}",
	[MSG_CARDS_EACH] = "{1}枚ずつ",
	[MSG_DEALER_WORD] = "親",
	[MSG_TURNED_WORD] = "めくったカード",
	[MSG_NO_TRUMP] = "切り札なし",
	[MSG_BIDS_HIDDEN] = "宣言は非公開: {2}に個別メッセージで送って"
	    "ください（bid N）",
	[MSG_SELECT_PRIVATELY] = "マイナスカードは{2}への個別メッセージで"
	    "選んでください（select CARD）",
	[MSG_STORE_FAILED] = "すみません、保存できませんでした。安全のため"
	    "ゲームを中断します。",
	[MSG_NOT_SAVED] = "すみません、保存できなかったため、今の操作は"
	    "無効になりました。保存できるようになりしだいゲームを続けます。",
	[MSG_NOT_SAVED_LOST] = "すみません、保存できなかったため、今の操作は"
	    "無効になりました。管理者が保存先を直して再起動するまで、"
	    "ゲームを保存できません。",
	[MSG_START_SEATS] = "着席は{1}人です。このゲームは{2}-{3}人で"
	    "遊びます。",
	[MSG_OPTION_REFUSED] = "受け付けられません: {1}",
	[MSG_REMINDER] = "あなたの番です。あと{1}秒でコンピューターが"
	    "代わりにプレイします。",
	[MSG_TIMEOUT] = "{1}の時間切れ: コンピューターが代わりにプレイ"
	    "します。",
	[MSG_STANDIN_TIMEOUTS] = "{1}が{2}backと言うまで、コンピューターが"
	    "席を預かります。",
	[MSG_STANDIN_LEFT] = "{1}が退席しました。コンピューターが代わりに"
	    "プレイします（{2}replace {1}で誰でも交代できます）。",
	[MSG_STANDIN_GONE] = "{1}がいなくなりました。{2}backと言うまで"
	    "コンピューターが代わりにプレイします。",
	[MSG_HAS_BID] = "{1}が宣言しました（残り{2}人）",
	[MSG_BIDS] = "{1}は{2}トリックと宣言",
	[MSG_BID_SUM] = "宣言の合計{1}（トリック数{2}）",
	[MSG_CHOOSES_TRUMP] = "{1}が選んだ切り札:",
	[MSG_HAS_SELECTED] = "{1}が選びました（残り{2}人）",
	[MSG_PENALTY_CARDS] = "マイナスカード:",
	[MSG_TAKES_TRICK] = "{1}がトリックを取りました",
	[MSG_ROUND_OVER] = "ラウンド{1}終了。",
	[MSG_REVEALED] = "最後の手札:",
	[MSG_LOSERS] = "ラウンドの敗者:",
	[MSG_ELIMINATED] = "最下位で脱落:",
	[MSG_GAME_OVER] = "ゲーム終了。勝者:",
	[MSG_STATUS_LOBBY] = "参加受付中、{1}人着席（{2}-{3}人）:",
	[MSG_TRICK_WORD] = "トリック:",
	[MSG_UNKNOWN_COMMAND] = "不明なコマンド「{1}」です。{2}help を"
	    "どうぞ。",
	[MSG_USAGE] = "使い方: {1}",
	[MSG_NO_TABLE] = "ここではゲームをしていません。{1}join で卓を"
	    "開けます。",
	[MSG_NOT_STARTED] = "ここのゲームはまだ始まっていません（{1}人着席、"
	    "準備ができたら {2}start）。",
	[MSG_KICK_COMPUTER] = "{1} はコンピューターです。外す人はいません。",
	[MSG_KICK_DONE_ALREADY] = "{1} の席はすでにコンピューターが打って"
	    "おり、誰でも引き継げます。",
	[MSG_LAST_END_NOW] = "ここではゲームをしていません。前回の{1}は"
	    "たった今終わりました:",
	[MSG_LAST_END_MINUTES] = "ここではゲームをしていません。前回の{1}は"
	    "{2}分前に終わりました:",
	[MSG_LAST_END_HOURS] = "ここではゲームをしていません。前回の{1}は"
	    "{2}時間前に終わりました:",
	[MSG_LAST_END_DAYS] = "ここではゲームをしていません。前回の{1}は"
	    "{2}日前に終わりました:",
	[MSG_GAME_RUNNING] = "ゲーム中です。終わるまで待つか、"
	    "{1}replace NAME でコンピューターの席を引き継げます。",
	[MSG_NOT_SEATED] = "この卓に席がありません（{1}join）。",
	[MSG_TURN_OF] = "あなたの番ではありませんでした。{1}の番でした。",
	[MSG_NOW_TASK] = "今はできません（{1}です）。",
	[MSG_MOVE_NOT_ALLOWED] = "{1} は今は出せません。",
	[MSG_REFUSED_PRIVATELY] = "できません。理由は個別に伝えました。",
	[MSG_PLAY_BLIND] = "（自分のカードは見えません。{1}play で出せます）",
	[MSG_YOUR_BID] = "あなたの宣言: {1}",
	[MSG_BAD_OPTION_TEXT] = "オプションは名前か NAME=VALUE の形で、"
	    "{1}文字以内です。",
	[MSG_NOT_STEERING] = "ゲームや設定を選べるのは着席している人"
	    "（または管理者）だけです。まず {1}join してください。",
	[MSG_CLOSE_VOTE] = "{1}がテーブルを閉じることに投票しました（{2}票、"
	    "必要{3}票。賛成なら{4}stop）。",
	[MSG_BOT_ADMIN_ONLY] = "それができるのはボットの管理者だけです。",
	[MSG_ACCOUNT_NEEDED] = "ここで着席できるのはサービスのアカウント"
	    "（NickServ）にログインしている人だけです。ログインしてから"
	    "もう一度どうぞ。",
	[MSG_BUSY] = "このテーブルへの送信がまだたくさん残っています。"
	    "数秒後にもう一度どうぞ。",
	[MSG_STORE_LOST] = "ゲームを保存できなくなったため、ここで一時停止"
	    "します。管理者が保存先を直して再起動すれば、この時点から"
	    "続けます。",
	[MSG_ME] = "私",
	[MSG_NO_OPTIONS] = "{1}にはオプションがありません。",
	/* What the public knows constrains the next play (present/). */
	[MSG_HINT_LEAD] = "リードは{1}",
	[MSG_WHY_FOLLOW] = "{1}を持っている間は{1}を出す必要があります。",
	[MSG_WHY_BID_RANGE] = "宣言は0から配られた枚数の{1}までです。",
	[MSG_HINT_WIZARD_LED] = "ウィザードが先頭: どのカードでも可",
	[MSG_HINT_STANDARD] = "{1}以上か一番弱いカード",
	[MSG_WHY_ONE_RANK] = "まとめてリードするカードは同じ数字でなければなりません。",
	[MSG_WHY_KEEP_ONE] = "手札を少なくとも1枚は残す必要があります。",
	[MSG_WHY_WIDTH] = "リードと同じ枚数（{1}枚）を出してください。",
	[MSG_EDIT_IGNORED] = "編集されたメッセージには応じません。コマンドを"
	    "新しいメッセージとして送り直してください。",
	[MSG_WHY_MEET_ONE] = "{1}以上か、一番弱いカード{2}を出してください。",
	[MSG_WHY_MEET] = "弱い順に並べて、どのカードも{1}の同じ位置のカード以上"
	    "でなければなりません。そうでなければ一番弱いカード{2}を出します。",
	[MSG_VIEW_HAND] = "あなたの手札:",
	[CMD_TABLE] = "{1}table · 場の様子と自分の手札（出せるカードは[ ]付き）"
	    "を個別メッセージで見る",
	[MSG_CROWDED] = "いま多くの人から一度に話しかけられているので、"
	    "ゲームの手番を先に処理しています。少ししてからもう一度どうぞ。",
	[MSG_NOBODY_SEATED] = "着席している人がいなくなったので、ゲームを"
	    "一時停止します（{1}back で自分の席に戻れます。空いた席には "
	    "{1}replace NAME で着席できます）。{2}分後に終了します。",
	[MSG_GAME_SET] = "次のゲーム: {1}（{2}-{3}人）。{4}join で"
	    "着席してください。",
	[MSG_UNKNOWN_GAME] = "不明なゲーム「{1}」です。wizard、birdhead、"
	    "sticheln から選んでください。",
	[MSG_JOINED] = "{1}が{2}に参加（{3}人着席、{4}-{5}人。準備が"
	    "できたら{6}start）。",
	[MSG_ALREADY_SEATED] = "すでに着席しています。",
	[MSG_TABLE_FULL] = "満席です（{1}席）。",
	[MSG_LEFT_LOBBY] = "{1}が卓を離れました。",
	[MSG_TABLE_CLOSED] = "卓を閉じました。",
	[MSG_OPTION_SET] = "オプション: {1}",
	[MSG_OPTIONS_NONE] = "なし",
	[MSG_OPTIONS_UNFIT] = "{1}人では開始できません: {2}",
	[MSG_OPTIONS_LIST] = "オプション: {1}。選べるもの: {2}。"
	    "{3}option NAME[=VALUE] ... で切り替え・設定します（いくつでも）。",
	[MSG_BAD_NUMBER] = "「{1}」は使える数ではありません。",
	[MSG_BAD_CARD] = "「{1}」はこのゲームのカードではありません。",
	[MSG_BAD_SUIT] = "「{1}」はスートではありません: r、y、g、b の"
	    "どれかです。",
	[MSG_WHICH_TABLE] = "複数の卓に着席しています（{2}）。卓を指定して"
	    "ください。例: {1} {3} ...",
	[MSG_NO_TABLES] = "どの卓にも着席していません。",
	[MSG_PRIVATE_ONLY] = "卓のチャンネルで言ってください。",
	[MSG_BOT_ADDED] = "{1}（{2}）が参加（{3}人着席、{4}-{5}人）。",
	[MSG_BAD_LEVEL] = "不明なレベル「{1}」です: easy、normal、hard の"
	    "どれかです。",
	[MSG_NO_SUCH_SEAT] = "「{1}」という人はこの卓にいません。",
	[MSG_SEAT_AMBIGUOUS] = "「{1}」という名前の席が複数あります。卓に"
	    "表示されているユーザーIDで指定してください。",
	[MSG_NOT_REPLACEABLE] = "{1}は本人がプレイしています。",
	[MSG_REPLACED] = "{1}が{2}の席を引き継ぎました。",
	[MSG_BACK] = "おかえりなさい、{1}。席が戻りました。",
	[MSG_NOT_AWAY] = "席はすでにあなたのものです。",
	[MSG_STOP_VOTE] = "{1}がゲームの中止に投票しました（{2}票、必要"
	    "{3}票。賛成なら{4}stop）。",
	[MSG_STOPPED] = "ゲームを中止しました。",
	[MSG_LANG_SET] = "言語: 日本語。",
	[MSG_BAD_LANG] = "不明な言語「{1}」です: en か ja。",
	[MSG_HELP] = "コマンド: {1}。{2}help COMMAND で詳しく説明します。",
	[MSG_HELP_COMMAND] = "（別名: {1}）",
	[MSG_STATS] = "{1}の{2}: {3}ゲーム、{4}勝、平均{5}",
	[MSG_STATS_WIZARD] = "、宣言的中率{1}%（{2}ラウンド）",
	[MSG_STATS_NONE] = "{1}の終わったゲームはまだありません。",
	[MSG_TOP] = "{1}の上位:",
	[MSG_TOP_NONE] = "{1}の終わったゲームはまだありません。",
	[MSG_NOT_ADMIN] = "それができるのはボットの管理者だけです。",
	[MSG_KICKED] = "管理者が{1}の席をコンピューターに任せました"
	    "（{2}back か {2}replace で取り戻せます）。",
	[MSG_RESUMED] = "中断したところからゲームを再開します。",
	[MSG_RECONNECTED] = "オンラインに戻りました。ゲームを続けます。",
	[MSG_SAVING_AGAIN] = "再び保存できるようになりました。ゲームを続けます。",
	[MSG_BACK_IN_CHANNEL] = "戻りました。離れていた間のここでの発言は"
	    "届いていません。",
	[MSG_GOODBYE] = "再起動します。戻りしだいこのゲームを再開します。",
	[MSG_GOODBYE_STORE_LOST] = "停止します。このゲームは保存できなかったので、"
	    "運営者がストアを修復してから再開します。",
	[MSG_SET_DONE] = "チャンネル設定 {1} = {2}。",
	[MSG_BAD_SETTING] = "{1} を「{2}」にはできません（game, lang, "
	    "prefix, timer, formatting on|off）。",
	[MSG_RELOADED] = "設定を読み込み直しました。",
	[MSG_RELOAD_FAILED] = "読み込み直しに失敗: {1}",
	[MSG_BOT_STATUS] = "稼働{1}秒、ネットワーク{2}、卓{3}、進行中の"
	    "ゲーム{4}、送信待ちメッセージ{5}。",
	[MSG_RESTARTED] = "同じプレイヤーでゲームをやり直します。",
	[MSG_STATUS_STORE_FAILED] = "ストアが故障しています（理由はログに）。"
	    "修復して再起動するまでゲームを保存できません。",
	[MSG_NOTHING_TO_DO] = "何もすることはありません。",
	[MSG_WELCOME_BACK] = "おかえりなさい、{1}。{2}back で席に"
	    "戻れます。",
	[MSG_ANY_CARD] = "（どのカードでも可）",
	[MSG_PARTING] = "管理者の求めにより退出します。さようなら！",
	[MSG_PLAY_COUNT] = "（{1}枚、例: {2}）",
	[MSG_SLOW_DOWN] = "コマンドが多すぎます。数秒間あなたのコマンドを"
	    "無視します。",
	[MSG_TOO_LONG] = "コマンドが長すぎます。",
	[CMD_GAME] = "{1}game NAME · ゲームを選ぶ: wizard、birdhead、"
	    "sticheln",
	[CMD_JOIN] = "{1}join · 卓に着席する",
	[CMD_LEAVE] = "{1}leave · 席を離れる（ゲーム中はコンピューターが"
	    "引き継ぐ）",
	[CMD_START] = "{1}start · 最初のラウンドを配る",
	[CMD_OPTION] = "{1}option [NAME[=VALUE] ...] · オプションの一覧・"
	    "切り替え・設定",
	[CMD_BID] = "{1}bid N · 何トリック取るかを宣言する",
	[CMD_TRUMP] = "{1}trump SUIT · ウィザードがめくられたとき切り札を"
	    "決める（r, y, g, b）",
	[CMD_PLAY] = "{1}play CARD... · カードを出す（BirdHead: 同じ強さの"
	    "カードを3枚まで）",
	[CMD_SELECT] = "{1}select CARD · マイナスカードを選ぶ（個別"
	    "メッセージで）",
	[CMD_HAND] = "{1}hand · 自分の手札を個別メッセージで見る",
	[CMD_STATUS] = "{1}status · 進行状況、手番、トリック、得点",
	[CMD_SCORES] = "{1}scores · スコアシート（終局後は前回の結果）",
	[CMD_ADDBOT] = "{1}addbot [easy|normal|hard] · コンピューターを"
	    "着席させる（満席の卓では {1}join でコンピューターの席に着けます）",
	[CMD_REPLACE] = "{1}replace NAME · コンピューターの席か、持ち主が"
	    "手放した席・チャンネルを去った人の席を引き継ぐ",
	[CMD_BACK] = "{1}back · コンピューターから席を取り戻す",
	[CMD_STOP] = "{1}stop · ゲームの中止に投票する",
	[CMD_HELP] = "{1}help [COMMAND] · このヘルプ",
	[CMD_LANG] = "{1}lang en|ja · 卓の言語",
	[CMD_STATS] = "{1}stats [NAME] · ゲーム数、勝利数、平均",
	[CMD_TOP] = "{1}top [GAME] · 上位のプレイヤー",
	[CMD_ADMIN] = "{1}admin status|reload|stop|restart|part|kick NAME|"
	    "set KEY VALUE · ボットの管理者用",
	/* newcomer (issue 17) */
	[MSG_YOU] = "あなた",
	[MSG_YOU_JOIN] = "あなたが{2}に参加（{3}人着席、{4}-{5}人。準備が"
	    "できたら{6}start）。",
	[MSG_YOU_LEAVE] = "あなたが卓を離れました。",
	[MSG_YOU_BID] = "あなたは{2}トリックと宣言",
	[MSG_YOU_HAVE_BID] = "あなたが宣言しました（残り{2}人）",
	[MSG_YOU_CHOOSE_TRUMP] = "あなたが選んだ切り札:",
	[MSG_YOU_HAVE_SELECTED] = "あなたが選びました（残り{2}人）",
	[MSG_YOU_TAKE_TRICK] = "あなたがトリックを取りました",
	[MSG_YOU_VOTE_STOP] = "あなたがゲームの中止に投票しました（{2}票、必要"
	    "{3}票。賛成は{4}stop）。",
	[MSG_YOUR_TURN] = "あなたが{1}です",
	[MSG_SECRET_HINT] = "これは秘密です: {2}に個別メッセージで {1} と"
	    "送ってください。",
	[MSG_SECRET_HINT_TYPE] = "これは秘密です: {2}を付けずに {1} と"
	    "入力してください（あなただけに見えます）。",
	[MSG_BIDS_HIDDEN_TYPE] = "宣言は非公開: {1}を付けずに bid N と"
	    "入力してください",
	[MSG_SELECT_TYPE] = "マイナスカードは非公開で選びます: {1}を付けずに "
	    "select CARD と入力してください",
	[MSG_DID_YOU_MEAN] = "不明なコマンド「{1}」です。{2} のことですか？"
	    "（{3}help で一覧）",
	[MSG_RANKING] = "順位:",
	[MSG_SHEET_LEGEND_BIDS] = "各ラウンド: 取ったトリック数/宣言、"
	    "そのラウンドの得点。",
	[MSG_SHEET_LEGEND_SELECTED] = "各ラウンド: 選んだマイナスカード、"
	    "そのラウンドの得点。",
	[MSG_SHEET_LEGEND_PENALTY] = "各ラウンド: 失点（合計の少ない人の"
	    "勝ち。22点でゲーム終了）。",
	[MSG_LINE_TOO_LONG] = "行が長すぎます（{1}文字まで）。何も"
	    "しませんでした。",
	[MSG_PLAY_AGAIN] = "もう一度遊びますか？ y: 同じ卓でもう一度、"
	    "n か quit: 終了。!stats と !top で成績が見られます。",
	[MSG_RULES_UNKNOWN] = "「{1}」というルールはありません。wizard、"
	    "birdhead、sticheln かオプション名を指定してください（一覧は"
	    "{2}option）。",
	[MSG_RULES_MORE] = "詳しくは: オプションは {1}rules OPTION、"
	    "コマンドは {1}help、全ルールは docs/rules.ja.md。",
	[MSG_RULES_WIZARD] = "ウィザード: 4色1-13の数札にウィザード(W)と"
	    "ジェスター(J)各4枚、計60枚。第kラウンドはk枚ずつ配り、山札の"
	    "次の1枚をめくって切り札を決めます（Wなら親が選び、Jなら切り札"
	    "なし）。全員が取るトリック数を宣言します。台札の色があれば出す"
	    "義務がありますが、WとJはいつでも出せます。最初のWが勝ち、なければ"
	    "最も強い切り札、なければ台札の色の最高位が勝ちます。宣言どおりなら"
	    "20点+1トリック10点、外れたら差1につき-10点。",
	[MSG_RULES_BIRDHEAD] = "BirdHead: 2-11の札が各5枚、計50枚。10枚ずつ"
	    "配ります。親は同じ数字を1-3枚出し、他の人は同じ枚数を、小さい順に"
	    "並べて1枚ずつ基準の札以上になるように出すか（基準は親の札、以後は"
	    "基準を満たした札）、手札の最も小さい札を"
	    "出します。一番強い札を出した人（同じなら後の人）がトリックを"
	    "取ります。最後の1枚を同時に公開し、最も大きい札の人がその数を"
	    "失点します。誰かが22点に達したら終了、失点の少ない人の勝ち。",
	[MSG_RULES_STICHELN] = "針: 15枚ずつ配り、毎ラウンド各自が"
	    "マイナスカードを1枚こっそり選びます。その色が自分のマイナス色です。"
	    "台札に従う義務はなく、台札以外の色はすべて切り札、0は勝てません。"
	    "最も強い切り札、なければ台札の色の最高位が勝ちます。取った札は"
	    "1枚+1点、ただしマイナス色の札はその数だけ減点、選んだカードの数も"
	    "減点。5ラウンドで合計の多い人の勝ち。",
	[MSG_RULE_NOTEQUAL] = "notequal: 最後に宣言する人は、宣言の合計を"
	    "配った枚数と同じにできません。",
	[MSG_RULE_EVENBID] = "evenbid: notequal と同じ。ただし親が単独で"
	    "首位のときだけ。",
	[MSG_RULE_CANADIAN] = "canadian: evenbid と同じ。ただし親はいつでも"
	    "0を宣言できます。",
	[MSG_RULE_HARDCORE] = "hardcore: 4枚以上配るラウンドでは、親は宣言の"
	    "合計を配った枚数と同じにできません。",
	[MSG_RULE_HIDDENTIP] = "hiddentip: 全員が同時にこっそり宣言し、全員"
	    "そろったら公開します。",
	[MSG_RULE_SECRET] = "secret: 同時にこっそり宣言し、ラウンドの得点"
	    "計算まで公開しません。",
	[MSG_RULE_QUICK] = "quick: 配る枚数が2枚ずつ増えます（4人なら1, 3, "
	    "5…、ほかは2, 4, 6…）。",
	[MSG_RULE_ROUNDS] = "rounds=N: 最初のNラウンドだけ遊びます。",
	[MSG_RULE_AMIGO] = "amigo: アミーゴ大会方式の10ラウンド（3-5人）。",
	[MSG_RULE_CUSTOM6] = "custom6: 1枚から全部までの決まった6ラウンド。",
	[MSG_RULE_NANNIE] = "nannie=K: 最大枚数から1枚ずつ減らし、Kラウンド"
	    "（2か3）ごとに合計最下位が脱落します。",
	[MSG_RULE_JESTERBID] = "jesterbid: 宣言なし（すべて0）。最初に出た"
	    "ジェスターがトリックを取ります。",
	[MSG_RULE_CLAIRVOYANCE] = "clairvoyance: 1枚配りの第1ラウンドでは、"
	    "自分以外の全員の札が見え、自分の札は見えません。",
	[MSG_RULE_DM] = "dm: 5ラウンドではなく4ラウンド。",
	[CMD_RULES] = "{1}rules [GAME|OPTION] · ルールの要約",
	[MSG_YOU_STANDIN] = "コンピューターがあなたの席でプレイします。"
	    "{2}back で席に戻れます。",
	[MSG_PLAY_RESUMING] = "前回の途中のゲームを続けます（!stop で終了し、"
	    "y で新しいゲームを配ります）。",
	/* settings: channel settings and option refusals. */
	[MSG_BAD_SETTING_PREFIX] = "prefix を「{1}」にはできません: 記号1〜4"
	    "文字です（例: !）。",
	[MSG_BAD_SETTING_TIMER] = "timer を「{1}」にはできません: 0（時間"
	    "制限なし）か 10〜3600 秒です。",
	[MSG_BAD_SETTING_FORMATTING] = "formatting を「{1}」にはできません: "
	    "on か off です。",
	/* オプションを受け付けない理由（game.h）。 */
	[MSG_REFUSAL_BAD_NAME] = "「{1}」というオプションはありません。",
	[MSG_REFUSAL_UNKNOWN] = "{6} に「{1}」というオプションはありません。",
	[MSG_REFUSAL_NEEDS_VALUE] = "オプション {1} には値が必要です"
	    "（{1}={3}..{4}）。",
	[MSG_REFUSAL_NEEDS_NUMBER] = "オプション {1} には {3} から {4} の数を"
	    "指定してください。",
	[MSG_REFUSAL_ON_OFF] = "オプション {1} は on か off です。",
	[MSG_REFUSAL_RANGE] = "オプション {1} は {3} から {4} の数です。",
	[MSG_REFUSAL_COMBINED] = "オプション {1} と {2} は一緒に使えません。",
	[MSG_REFUSAL_AT_ONCE] = "オプション {1} は {2} と一緒に使えません: "
	    "宣言は全員同時です。",
	[MSG_REFUSAL_NO_BIDDING] = "オプション {1} は {2} と一緒に使えません: "
	    "宣言がありません。",
	[MSG_REFUSAL_BOTH_ROUNDS] = "オプション {1} と {2} は一緒に使えません: "
	    "どちらもラウンドの配り方を決めます。",
	[MSG_REFUSAL_PLAYERS] = "オプション {1} は {3}〜{4}人用です（今は"
	    "{5}人）。",
	[MSG_REFUSAL_TOO_LONG] = "オプション {1}={3} はこのゲームの {4} "
	    "ラウンドより長いです。",
	[MSG_REFUSAL_STARTS_HIGH] = "オプション {1} には1枚配りの第1ラウンドが"
	    "必要ですが、{2} は多い枚数から始まります。",
	[MSG_REFUSAL_FIRST_ROUND] = "オプション {1} には1枚配りの第1ラウンドが"
	    "必要ですが、この配り方は {3} 枚から始まります。",
	[MSG_LEVEL_EASY] = "初級",
	[MSG_LEVEL_NORMAL] = "中級",
	[MSG_LEVEL_HARD] = "上級",
	/* seats: who may take a seat, and replies about one's own */
	[MSG_OWNER_HERE] = "{1}はまだここにいるか、すぐ戻るかもしれません。"
	    "この席に戻れるのは本人だけです（{2}back）。",
	[MSG_SEAT_TAKEN] = "{1}があなたの席を引き継ぎました。次のゲームで"
	    "{2}join してください。",
	[MSG_STANDIN_NOTE] = "コンピューターがあなたの席でプレイしています。"
	    "{1}back で席に戻れます。",
	[MSG_ALREADY_BID] = "宣言はもう済んでいます。",
	[MSG_ALREADY_SELECTED] = "マイナスカードはもう選んであります。",
	[MSG_GAME_NO_BIDS] = "{1}には宣言がありません。",
	[MSG_GAME_NO_TRUMP] = "{1}には切り札を選ぶ場面がありません。",
	[MSG_GAME_NO_SELECT] = "{1}にはマイナスカードを選ぶ場面がありません。",
	[MSG_NOT_HELD] = "{1} は手札にありません。",
	[MSG_STATUS_LOBBY_EMPTY] = "参加受付中、まだ誰も着席していません"
	    "（{1}-{2}人。{3}join で着席）。",
	/* private channels lost (a rejected Matrix direct room) */
	[MSG_PRIVATE_LOST] = "：個別メッセージを届けられませんでした。招待を"
	    "承認するか、{1}hand と言ってください。",
	/* economy: replies that say no more than needed */
	[MSG_NOT_AT_TABLE] = "{1} の卓に席はありません。",
	[MSG_ANOTHER_GAME] = "同じオプションでもう一度遊びますか？ {1}join "
	    "して {1}start。",
};
